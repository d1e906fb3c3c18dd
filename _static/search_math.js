/* dpmarkov book: search results show formulas as text, not as raw TeX (issue 29, part 6).
 *
 * Sphinx's search page summarises each hit with the text of the page it fetches
 * (Search.htmlToText in searchtools.js).  A formula there is still its TeX source,
 * "\(\epsilon\)", because MathJax typesets it only on the page itself.  Before the text is
 * taken, each formula is replaced by a plain reading of it: the delimiters go, Greek
 * letters and common symbols become their characters, \frac{a}{b} becomes a/b, and any
 * other command loses its backslash.  Loaded on every page (Jupyter Book adds _static/*.js);
 * it acts only where searchtools.js is loaded.  tests/test_browser.py checks the summaries.
 */
(function () {
  "use strict";
  const SYMBOLS = {
    alpha: "α", beta: "β", gamma: "γ", Gamma: "Γ", delta: "δ", Delta: "Δ", epsilon: "ε",
    varepsilon: "ε", zeta: "ζ", eta: "η", theta: "θ", Theta: "Θ", kappa: "κ", lambda: "λ",
    Lambda: "Λ", mu: "μ", nu: "ν", xi: "ξ", pi: "π", Pi: "Π", rho: "ρ", sigma: "σ",
    Sigma: "Σ", tau: "τ", phi: "φ", varphi: "φ", Phi: "Φ", chi: "χ", psi: "ψ", Psi: "Ψ",
    omega: "ω", Omega: "Ω", ell: "ℓ", infty: "∞", le: "≤", leq: "≤", ge: "≥", geq: "≥",
    ne: "≠", neq: "≠", approx: "≈", sim: "∼", times: "×", cdot: "·", cdots: "⋯", ldots: "…",
    dots: "…", pm: "±", to: "→", rightarrow: "→", mapsto: "↦", in: "∈", notin: "∉",
    subset: "⊂", subseteq: "⊆", cup: "∪", cap: "∩", sum: "∑", prod: "∏", int: "∫",
    partial: "∂", nabla: "∇", sqrt: "√", forall: "∀", exists: "∃", emptyset: "∅",
    lVert: "‖", rVert: "‖", Vert: "‖", lvert: "|", rvert: "|", mid: "|", langle: "⟨",
    rangle: "⟩", R: "ℝ", E: "E", Prob: "P", KL: "KL", TV: "TV", Dir: "Dir", simplex: "Δ",
    tilde: "", hat: "", bar: "", widetilde: "", widehat: "", overline: "", displaystyle: "",
    quad: " ", qquad: " ", ",": " ", ";": " ", "!": "", " ": " ", "|": "‖",
  };

  const group = (t) => (/^\\?\w+$/.test(t.trim()) ? t.trim() : `(${t.trim()})`);

  function texToText(tex) {
    let s = tex.trim().replace(/^\\[(\[]|\\[)\]]$/g, "").replace(/^\$+|\$+$/g, "");
    for (let i = 0; i < 5 && /\\[dt]?frac\s*\{/.test(s); i++)   // innermost first
      s = s.replace(/\\[dt]?frac\s*\{([^{}]*)\}\s*\{([^{}]*)\}/g, (m, a, b) => `${group(a)}/${group(b)}`);
    s = s.replace(/\\[dt]?frac\s*(\w)\s*(\w)/g, "$1/$2")   // \tfrac12
         .replace(/\\(?:left|right|big|Big|bigg|Bigg)\b\s*/g, "")
         .replace(/\\(?:mathbb|mathcal|mathrm|mathbf|operatorname|text|textrm|boldsymbol)\s*\{([^{}]*)\}/g, "$1")
         .replace(/\\([A-Za-z]+|[,;! |])/g, (m, name) => (name in SYMBOLS ? SYMBOLS[name] : name))
         .replace(/\\([{}_^%$&#])/g, "$1")
         .replace(/[{}]/g, "")
         .replace(/\s+/g, " ");
    return s.trim();
  }

  function install() {
    if (typeof Search === "undefined" || Search.dpmarkovMath) return;
    const original = Search.htmlToText;
    Search.htmlToText = (htmlString, anchor) => {
      const doc = new DOMParser().parseFromString(htmlString, "text/html");
      doc.querySelectorAll(".math").forEach((el) => { el.textContent = texToText(el.textContent); });
      return original(doc.documentElement.outerHTML, anchor);
    };
    Search.dpmarkovMath = true;
  }

  window.dpmarkovTexToText = texToText;
  install();
  document.addEventListener("DOMContentLoaded", install);
})();
