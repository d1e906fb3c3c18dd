/* dpmarkov book: two accessibility repairs of the theme's markup (issue 35, item 6; checked
   by axe-core's WCAG 2.1 A and AA rules in tests/test_browser.py).

   1. The references page lists its citations in a role="list" container whose entries carry
      the deprecated role "doc-biblioentry" (docutils), so the list has no list items (ARIA
      "required children"): the entries become role="listitem".
   2. Label in name (WCAG 2.5.3): a control whose aria-label does not contain the text it
      shows (axe: label-content-name-mismatch) is named otherwise by
      aria-label (the search button "Search" showing a keyboard shortcut too, a hidden
      cell's "Toggle hidden content" that shows "Show code cell source") loses the
      aria-label, so its name is the text it shows; icon-font glyphs inside a labelled
      control are marked aria-hidden (decoration, not text). The colour-mode button's icons
      are not left to this script: Font Awesome may turn them into SVG before it runs, so
      _ext/templates/theme-switcher.html marks them in the markup. */
function dpmarkovA11y() {
  document.querySelectorAll('[role="doc-biblioentry"]').forEach(function (entry) {
    entry.setAttribute("role", "listitem");
  });
  document.querySelectorAll("button[aria-label], summary[aria-label], a[aria-label], " +
                            "[data-dpmarkov-label]").forEach(function (control) {
    if (!control.hasAttribute("data-dpmarkov-label"))
      control.setAttribute("data-dpmarkov-label", control.getAttribute("aria-label"));
    var label = control.getAttribute("data-dpmarkov-label");
    // an icon font's glyph is decoration, not text the control shows; innerText is the text
    // it shows (textContent would count text hidden by CSS)
    control.querySelectorAll("i").forEach(function (icon) {
      icon.setAttribute("aria-hidden", "true");
    });
    var shown = (control.innerText || "").replace(/\s+/g, " ").trim().toLowerCase();
    if (shown && label.toLowerCase().indexOf(shown) === -1) control.removeAttribute("aria-label");
    else control.setAttribute("aria-label", label);
  });
}
// once the page is parsed, and again when it has loaded (the theme sets its buttons up
// in between)
// and whenever the theme changes a control's content (a hidden cell's "Show"/"Hide"): the control is named by the text it shows, or by its label when it
// shows none
document.addEventListener("DOMContentLoaded", function () {
  dpmarkovA11y();
  new MutationObserver(dpmarkovA11y).observe(document.body,
    {childList: true, subtree: true, characterData: true});
});
window.addEventListener("load", dpmarkovA11y);
