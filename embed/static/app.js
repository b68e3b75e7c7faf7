// app.js is the web app's one script for every page, and only adds to
// pages that work without it: a Copy button beside a value to copy (the
// API key shown once, an MCP client's configuration); rows added in place
// on Record's bulk grid; the amount left to split, live, on the split form. Each button is in the
// page with the hidden attribute, so a browser without scripts never shows
// a button that would do nothing. The page's CSP allows this file and no
// inline script.
"use strict";

// copyText puts text on the clipboard. navigator.clipboard exists only on
// https and localhost; a server reached over plain http on a LAN copies
// through a selection instead.
async function copyText(field) {
  const text = "value" in field ? field.value : field.textContent;
  if (navigator.clipboard && window.isSecureContext) {
    await navigator.clipboard.writeText(text);
    return;
  }
  field.focus();
  if (field.select) {
    field.select();
  } else {
    const range = document.createRange();
    range.selectNodeContents(field);
    getSelection().removeAllRanges();
    getSelection().addRange(range);
  }
  if (!document.execCommand("copy")) {
    throw new Error("copy refused");
  }
}

function bindCopyButtons() {
  for (const button of document.querySelectorAll("button[data-copy]")) {
    const field = document.getElementById(button.dataset.copy);
    if (!field) {
      continue;
    }
    // The outcome is announced by a status beside the button, not by
    // changing its name under the person's finger.
    const status = document.createElement("span");
    status.className = "copy-status small";
    status.setAttribute("role", "status");
    button.after(status);
    button.addEventListener("click", async () => {
      try {
        await copyText(field);
        status.textContent = "Copied.";
      } catch (e) {
        status.textContent = "Not copied: select the text and copy it yourself.";
      }
    });
    button.hidden = false;
  }
}

bindCopyButtons();

// --- Record: the bulk grid (record_bulk.html) -------------------------------
// Without this, "Add 5 rows" posts the form and shows it again with more
// rows, and Enter saves, as in any form. With it, Enter goes down to the
// next row's description, as in a spreadsheet, and in the last row adds a
// row ("Add a row" does too): paid as the row above, its date left blank
// (the server gives it the date above), so a person types expense after
// expense without leaving the keyboard, and saves with Save all.
function bindBulkGrid() {
  const form = document.querySelector("form.bulk-grid");
  const button = form && form.querySelector("button[data-add-row]");
  const rows = () => form.querySelectorAll(".bulk-row");
  if (!button || rows().length === 0) {
    return;
  }
  const count = form.querySelector("input[name=rows]");
  const most = Number(form.dataset.maxRows);

  function addRow() {
    const all = rows();
    const last = all[all.length - 1];
    const n = all.length;
    if (n >= most) {
      return null;
    }
    const from = Number(last.id.slice(1));
    const row = last.cloneNode(true);
    // What belonged to the row copied: its problems, the parser's notes and guesses.
    for (const el of row.querySelectorAll(".row-errors, .guessed-note, .warnings, .badge.guess")) {
      el.remove();
    }
    for (const el of row.querySelectorAll(".guessed")) {
      el.classList.remove("guessed");
    }
    for (const el of [row, ...row.querySelectorAll("*")]) {
      el.removeAttribute("aria-invalid");
      el.removeAttribute("aria-describedby");
      for (const name of ["id", "for", "name", "aria-labelledby"]) {
        const v = el.getAttribute(name);
        if (v !== null) {
          el.setAttribute(name, v.replace(`r${from}`, `r${n}`).replace(`items[${from}]`, `items[${n}]`));
        }
      }
    }
    const label = document.createElement("span");
    label.className = "sr-only";
    label.textContent = "Row ";
    row.querySelector(".bulk-num").replaceChildren(label, String(n + 1));
    for (const input of row.querySelectorAll("input")) {
      input.value = "";
    }
    for (const select of row.querySelectorAll("select")) {
      const above = last.querySelector(`select[name$="${select.name.slice(select.name.indexOf("."))}"]`);
      select.value = select.name.endsWith(".category") ? "" : above.value;
    }
    last.after(row);
    count.value = String(n + 1);
    button.disabled = n + 1 >= most;
    return row;
  }

  button.addEventListener("click", () => addRow()?.querySelector("input[name$='.description']").focus());
  form.addEventListener("keydown", (e) => {
    const row = e.target.closest(".bulk-row");
    if (e.key !== "Enter" || e.isComposing || !row) {
      return;
    }
    e.preventDefault();
    const next = row.nextElementSibling?.classList.contains("bulk-row") ? row.nextElementSibling : addRow();
    next?.querySelector("input[name$='.description']").focus();
  });
  button.hidden = false;
  const hint = form.querySelector("[data-enter-hint]");
  if (hint) {
    hint.hidden = false;
  }
}

bindBulkGrid();

// --- Expenses: the split form (expense_split.html) --------------------------
// The server gives the one part left without an amount what the other
// parts leave; this says, as the person types, how much that is. Amounts
// are read into whole cents from their digits (never through a fraction),
// with the grouping the person's currency uses, as the server reads them.
function readCents(text, decimalComma) {
  const t = text.trim().replace(/[\s'\u00a0]/g, "");
  const marks = t.match(/[.,]/g) || [];
  let decimal = null; // the decimal mark, by the rules of "Amounts typed on the pages" (docs/domain.md)
  if (new Set(marks).size === 2) {
    decimal = marks[marks.length - 1];
  } else if (marks.length === 1) {
    const three = t.length - t.indexOf(marks[0]) - 1 === 3;
    decimal = !three || (marks[0] === ",") === decimalComma ? marks[0] : null;
  }
  const at = decimal ? t.lastIndexOf(decimal) : t.length;
  const whole = t.slice(0, at).replace(/[.,]/g, "");
  const fraction = t.slice(at + 1);
  if (!/^\d{1,9}$/.test(whole) || !/^\d{0,2}$/.test(fraction)) { // at most 999,999,999.99, as the server takes
    return null;
  }
  return Number(whole) * 100 + Number(fraction.padEnd(2, "0"));
}

function formatCents(cents, prefix) {
  const whole = String(Math.floor(cents / 100)).replace(/\B(?=(\d{3})+$)/g, ",");
  return prefix + whole + "." + String(cents % 100).padStart(2, "0");
}

function bindSplitRemainder() {
  const form = document.querySelector("form.split-form");
  const status = form && form.querySelector("#split-left");
  if (!status) {
    return;
  }
  const comma = form.dataset.decimalComma === "true";
  const total = readCents(form.dataset.total, false);
  const money = (cents) => formatCents(cents, form.dataset.moneyPrefix);

  function update() {
    let sum = 0;
    const open = [];
    for (const row of form.querySelectorAll(".split-row")) {
      const amount = row.querySelector("input[name$='.amount']");
      const typed = row.querySelector("select").value + row.querySelector("input[name$='.description']").value;
      amount.placeholder = "";
      if (amount.value.trim() === "") {
        if (typed.trim() !== "") {
          open.push(amount);
        }
        continue;
      }
      const cents = readCents(amount.value, comma);
      if (cents === null) {
        status.textContent = "";
        return;
      }
      sum += cents;
    }
    const part = (input) => input.closest(".split-row").querySelector("legend").textContent;
    if (open.length === 1 && sum < total) {
      open[0].placeholder = money(total - sum).slice(form.dataset.moneyPrefix.length);
      status.textContent = `${part(open[0])} takes the ${money(total - sum)} left.`;
    } else if (open.length === 1) {
      status.textContent = `Nothing is left for ${part(open[0]).toLowerCase()}: the other parts already come to ${money(sum)}.`;
    } else if (sum > total) {
      status.textContent = `The parts come to ${money(sum - total)} more than the expense.`;
    } else if (sum === total) {
      status.textContent = "The parts add up to the expense.";
    } else {
      status.textContent = `${money(total - sum)} left to split: leave one part's amount empty and it takes this.`;
    }
  }

  form.addEventListener("input", update);
  form.addEventListener("change", update);
  status.hidden = false;
  update();
}

bindSplitRemainder();
