// The page's only script: sort and filter the per-function table, open a function's code
// side by side (loaded from the script beside the page that holds it), switch its dumps.
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

  // A function's code is a script beside the page (`<page>.code/code-N.js`), loaded the
  // first time the function is opened; it sets `window.loweringCode[id]`.
  const view = document.getElementById("code-view");
  function show(id) {
    const template = document.createElement("template");
    template.innerHTML = window.loweringCode[id];
    view.replaceChildren(template.content);
    view.hidden = false;
    view.scrollIntoView({ block: "start" });
    view.dispatchEvent(new CustomEvent("code-opened", { detail: id }));
  }
  body.addEventListener("click", function (event) {
    const button = event.target.closest("button.open");
    if (!button) return;
    const id = button.dataset.code;
    if (window.loweringCode && window.loweringCode[id] !== undefined) return show(id);
    const script = document.createElement("script");
    script.src = view.dataset.codeDir + "/" + id + ".js";
    script.onload = function () { show(id); };
    script.onerror = function () {
      view.textContent = "The code of this function is not beside the page: " + script.src +
        " (the page was moved without its " + view.dataset.codeDir + " directory?)";
      view.hidden = false;
    };
    document.head.appendChild(script);
  });
  view.addEventListener("click", function (event) {
    const tab = event.target.closest(".tabs button");
    if (!tab) return;
    for (const other of view.querySelectorAll(".tabs button")) other.classList.toggle("on", other === tab);
    for (const dump of view.querySelectorAll("table.sbs")) dump.hidden = dump.dataset.kind !== tab.dataset.kind;
  });
})();
