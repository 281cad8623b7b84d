// Copy buttons: a button with data-copy="ID" copies the value of the input
// with that id, says "Copied" in the status element data-copy-status="ID",
// and falls back to selecting the text and the browser's copy command when
// the Clipboard API is unavailable or refused. Loaded with defer.
(() => {
  'use strict';

  /** FEEDBACK_MS is how long the button says "Copied". */
  const FEEDBACK_MS = 2000;

  const fallbackCopy = (input) => {
    input.focus();
    input.select();
    input.setSelectionRange(0, input.value.length);
    try {
      return document.execCommand('copy');
    } catch {
      return false;
    }
  };

  for (const button of document.querySelectorAll('button[data-copy]')) {
    const input = document.getElementById(button.dataset.copy);
    if (!input) continue;
    const status = document.querySelector(`[data-copy-status="${button.dataset.copy}"]`);
    const label = button.textContent;
    let timer = 0;
    const say = (ok) => {
      button.textContent = ok ? 'Copied' : label;
      if (status) {
        status.textContent = ok ? 'Copied: paste the link into your message to the candidate.'
          : 'Copying is blocked here: the link is selected, press Ctrl+C (⌘C on a Mac) to copy it.';
      }
      clearTimeout(timer);
      if (ok) timer = setTimeout(() => { button.textContent = label; }, FEEDBACK_MS);
    };
    button.addEventListener('click', async () => {
      try {
        if (!navigator.clipboard) throw new Error('no clipboard');
        await navigator.clipboard.writeText(input.value);
        say(true);
      } catch {
        say(fallbackCopy(input));
      }
    });
    button.hidden = false;
  }
})();
