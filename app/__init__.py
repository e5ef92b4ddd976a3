"""The foodtag web app: meal photo -> foods, carbohydrates and exchanges; a meal log.

`python -m app` serves it (FastAPI + Gradio); see app.__main__ for the commands.
"""
