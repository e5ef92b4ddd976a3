"""Glucose beside meals: CGM and meter readings imported from device exports (formats), read in
the person's time zone (zones), the standard CGM report and each meal's response (metrics), and
the service functions the app and the CLI call (service). It shows what happened; it never
advises on dosing and predicts nothing.
"""
