// The room page's texts in the interview's language. The server renders
// the catalogue's texts for this page (package interviews/lang, keys
// "js.…") into a JSON block; the page reads them once with readTexts and
// every label goes through t. Nothing here touches the DOM.

let texts = {};

/** setTexts replaces the texts, by name. */
export function setTexts(byName) {
  texts = byName && typeof byName === 'object' ? byName : {};
}

/** readTexts takes the texts from the page's JSON block (its text). */
export function readTexts(json) {
  try {
    setTexts(JSON.parse(json || '{}'));
  } catch {
    setTexts({});
  }
}

/**
 * t is the text called name with its {placeholders} filled from vars; the
 * name itself when the page carries no such text.
 */
export function t(name, vars = {}) {
  const s = texts[name];
  if (typeof s !== 'string') return name;
  return s.replace(/\{(\w+)\}/g, (whole, key) => (key in vars ? String(vars[key]) : whole));
}
