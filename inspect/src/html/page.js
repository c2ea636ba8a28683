// The page's only script: sort and filter the per-function table, open a function's code
// side by side, switch its dumps. Everything it shows is already in the page.
"use strict";

(function () {
  const table = document.getElementById("functions-table");
  const body = table.tBodies[0];

  function key(row, column, numeric) {
    const cell = row.cells[column];
    if (!numeric) return cell.textContent.trim().toLowerCase();
    const value = cell.dataset.value;
    // Cells without a figure sort last whichever way.
    return value === undefined || value === "" ? null : Number(value);
  }

  for (const heading of table.tHead.rows[0].cells) {
    heading.addEventListener("click", function () {
      const column = Number(heading.dataset.column);
      const numeric = heading.dataset.sort === "num";
      const ascending = heading.getAttribute("aria-sort") !== "ascending";
      for (const other of table.tHead.rows[0].cells) other.removeAttribute("aria-sort");
      heading.setAttribute("aria-sort", ascending ? "ascending" : "descending");
      const rows = Array.from(body.rows);
      rows.sort(function (a, b) {
        const x = key(a, column, numeric), y = key(b, column, numeric);
        if (x === null || y === null) return (x === null) - (y === null);
        const order = x < y ? -1 : x > y ? 1 : 0;
        return ascending ? order : -order;
      });
      for (const row of rows) body.appendChild(row);
    });
  }

  const filter = document.getElementById("filter");
  const count = document.getElementById("filter-count");
  function applyFilter() {
    const wanted = filter.value.trim().toLowerCase();
    let shown = 0;
    for (const row of body.rows) {
      const match = row.dataset.name.toLowerCase().includes(wanted);
      row.hidden = !match;
      if (match) shown += 1;
    }
    count.textContent = shown + " of " + body.rows.length + " functions";
  }
  filter.addEventListener("input", applyFilter);
  applyFilter();

  const view = document.getElementById("code-view");
  body.addEventListener("click", function (event) {
    const button = event.target.closest("button.open");
    if (!button) return;
    const template = document.getElementById(button.dataset.code);
    view.replaceChildren(template.content.cloneNode(true));
    view.hidden = false;
    view.scrollIntoView({ block: "start" });
  });
  view.addEventListener("click", function (event) {
    const tab = event.target.closest(".tabs button");
    if (!tab) return;
    for (const other of view.querySelectorAll(".tabs button")) other.classList.toggle("on", other === tab);
    for (const dump of view.querySelectorAll("table.sbs")) dump.hidden = dump.dataset.kind !== tab.dataset.kind;
  });
})();
