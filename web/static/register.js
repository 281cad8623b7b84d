// The registration form offers the design problems of the plan picked
// only: each plan's problems are an optgroup marked with data-blueprint,
// and the others are hidden and disabled (a problem chosen for another
// plan goes back to "drawn for the interview"). Without a plan that has
// problems, the whole field is hidden. The server checks the choice
// again. Loaded with defer.
(() => {
  'use strict';

  const plan = document.getElementById('blueprint');
  const problem = document.getElementById('problem');
  if (!plan || !problem) return;
  const field = problem.closest('.field');
  const show = () => {
    let any = false;
    for (const group of problem.querySelectorAll('optgroup[data-blueprint]')) {
      const mine = group.dataset.blueprint === plan.value;
      group.hidden = !mine;
      group.disabled = !mine;
      any = any || mine;
    }
    const chosen = problem.selectedOptions[0];
    if (chosen && chosen.parentElement.disabled) problem.value = '';
    if (field) field.hidden = !any && problem.value === '';
  };
  plan.addEventListener('change', show);
  show();
})();
