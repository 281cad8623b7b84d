// Field errors clear as soon as the field is corrected: a field the
// server marked wrong (aria-invalid) loses its red outline and its message
// once its value changes, so the page never shows an error for what was
// fixed. The server checks the field again on submit. Loaded with defer.
(() => {
  'use strict';

  for (const input of document.querySelectorAll('[aria-invalid="true"]')) {
    const field = input.closest('.field');
    const initial = input.type === 'file' ? '' : input.value;
    const clear = () => {
      if (input.type !== 'file' && input.value === initial) return;
      input.removeAttribute('aria-invalid');
      if (!field) return;
      field.classList.remove('has-error');
      for (const msg of field.querySelectorAll('.field-error')) msg.hidden = true;
    };
    input.addEventListener('input', clear);
    input.addEventListener('change', clear);
  }
})();
