// app.js is the web app's one script for every page, and only adds to
// pages that work without it: a Copy button beside a value to copy (the
// API key shown once, an MCP client's configuration). Each button is in the
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
