"""The page's look and its script: the theme, the CSS and the <head> script that
gr.mount_gradio_app adds to the page (app.server)."""

import gradio as gr

# White text on the default orange is 2.8:1; WCAG 2.1 AA asks 4.5:1 for text. The darker
# shades keep the brand colour and pass (orange 700 on white text: 5.2:1). Red is named by its
# value: the theme has no error hue, so "*error_700" was an undefined CSS variable, and the Delete
# buttons were white text on no background, invisible (issue 42: "shows only Save").
RED = gr.themes.colors.red
THEME = gr.themes.Default().set(
    button_primary_background_fill="*primary_700",
    button_primary_background_fill_hover="*primary_800",
    button_primary_text_color="white",
    button_cancel_background_fill=RED.c700,  # white text on it: 6.5:1
    button_cancel_background_fill_hover=RED.c800,
    button_cancel_text_color="white",
    body_text_color_subdued="*neutral_600",
    color_accent="*primary_700",
)
# Phones first: a short header, and the carbohydrate figure large.
CSS = """
#page-title h1 { font-size: 1.25rem !important; margin: 0 !important; }
/* The title takes the row (the sign-in line goes under it on a phone): never "carbohydrate/s". */
#page-title { flex: 3 1 300px !important; min-width: 0 !important; }
#signed-in-as { flex: 1 1 160px !important; }
#sign-out { white-space: nowrap; }  /* "Sign out" on one line, also on a phone */
/* The date box shrinks so that its calendar button stays on a phone's screen. */
#eaten-at input { min-width: 0 !important; width: 100% !important; }
#eaten-at > div { min-width: 0 !important; }
#carb-headline h2 { font-size: 2rem; margin: 0.2rem 0; }
#carb-headline.pending { opacity: 0.45; }  /* grams typed, not yet on the card */
"""
# Runs before the app: an ended sign-in (any 401 from the app's own requests) replaces the
# whole page by a sign-in link, so neither raw JSON nor the last user's meals stay on screen;
# the grams box asks phones for a number pad; the icon-only buttons Gradio draws without a
# name (the date pickers' calendar, the photo preview) get one for screen readers, the
# carbohydrate headline and the log status are live regions, and Gradio's empty-file
# placeholder loses a label that ARIA does not allow on a plain <div>. Gradio's Dropdown opens
# its list whenever its box gains focus; reached by Tab it is closed again (its own Escape), so
# a keyboard user passes it like a native <select> and opens it with the arrow keys; Gradio
# also reopens it on any key, Tab included, after focus has left, so Tab never reaches it.
HEAD = """<script>
(() => {
  let tabbing = false;
  document.addEventListener("keydown", event => {
    tabbing = event.key === "Tab";
    if (tabbing && event.target.matches("input[role=combobox]")) event.stopPropagation();
  }, true);
  document.addEventListener("pointerdown", () => { tabbing = false; }, true);
  // Pressing Log leaves the focus in the grams box until the click has landed: leaving the box
  // redraws the card for the typed grams, and a taller or shorter headline could move Log from
  // under the pointer before it is released (app.ui.analyse blurs the box once Log is clicked).
  document.addEventListener("mousedown", event => {
    if (event.target.closest?.("#log-meal")) event.preventDefault();
  }, true);
  document.addEventListener("focusin", event => {
    if (tabbing && event.target.matches("input[role=combobox]")) {
      event.target.dispatchEvent(new KeyboardEvent("keydown", {key: "Escape", bubbles: true}));
    }
    tabbing = false;
  });
  const ended = () => {
    if (document.getElementById("session-ended")) return;
    document.body.innerHTML = '<main id="session-ended" style="font-family:system-ui,sans-serif;'
      + 'max-width:22rem;margin:4rem auto;padding:0 1rem"><h1>foodtag</h1><p role="alert">Your '
      + 'session ended: <a href="' + new URL("login", document.baseURI) + '">sign in again</a>.'
      + '</p></main>';
  };
  const plainFetch = window.fetch.bind(window);
  window.fetch = async (...args) => {
    const response = await plainFetch(...args);
    if (response.status === 401) ended();
    return response;
  };
  const unnamed = [["#portion-grams input, #portion-grams textarea", "inputmode", "decimal"],
                   ["button.calendar", "aria-label", "Pick a date"],
                   [".image-container > button", "aria-label", "Analysed photo"],
                   // Screen readers announce a new carbohydrate figure and what was logged.
                   ["#carb-headline, #log-status, #portion-pending", "aria-live", "polite"]];
  new MutationObserver(() => {
    for (const [selector, name, value] of unnamed) {
      for (const element of document.querySelectorAll(selector)) {
        if (!element.hasAttribute(name)) element.setAttribute(name, value);
      }
    }
    for (const element of document.querySelectorAll("div.empty[aria-label]:not([role])")) {
      element.removeAttribute("aria-label");
    }
  }).observe(document.documentElement, {childList: true, subtree: true});
})();
</script>"""
PAGE_ASSETS = {"theme": THEME, "css": CSS, "head": HEAD}  # for gr.mount_gradio_app
