// The Import form's upload progress. Without this script the form posts as
// any other and the browser shows its own progress, if any; with it, a
// large file shows how much is sent, then that the server is reading it,
// and the answer (the review page, or the form with its problems) replaces
// the page as the plain post's would.
"use strict";

function bindImportForm() {
  const form = document.querySelector("form.import-form");
  if (!form || !window.FormData || !window.XMLHttpRequest) {
    return;
  }
  form.addEventListener("submit", (event) => {
    if (form.dataset.sending) {
      event.preventDefault(); // one upload at a time
      return;
    }
    event.preventDefault();
    form.dataset.sending = "1";
    const button = form.querySelector("button[type=submit]");
    if (button) {
      button.disabled = true;
    }
    const box = document.createElement("div");
    box.className = "upload-progress";
    const bar = document.createElement("progress");
    bar.max = 100;
    bar.value = 0;
    bar.id = "upload-progress";
    const label = document.createElement("label");
    label.htmlFor = bar.id;
    label.setAttribute("role", "status");
    label.textContent = "Uploading…";
    box.append(label, bar);
    (form.querySelector(".actions") || form).before(box);

    const xhr = new XMLHttpRequest();
    xhr.open("POST", form.action);
    xhr.upload.addEventListener("progress", (e) => {
      if (e.lengthComputable) {
        const percent = Math.floor((e.loaded / e.total) * 100);
        bar.value = percent;
        label.textContent = "Uploading… " + percent + "%";
      }
    });
    xhr.upload.addEventListener("load", () => {
      bar.removeAttribute("value"); // the server's part takes as long as it takes
      label.textContent = "Reading the file…";
    });
    xhr.addEventListener("load", () => {
      // The answer is a page: the review page the post was redirected to,
      // or this form again with its problems. Show it as the browser would.
      const page = new DOMParser().parseFromString(xhr.responseText, "text/html");
      document.title = page.title;
      document.body.replaceWith(page.body);
      if (xhr.responseURL && xhr.responseURL !== location.href) {
        history.pushState(null, "", xhr.responseURL);
      }
      window.scrollTo(0, 0);
      bindImportForm();
    });
    xhr.addEventListener("error", () => {
      delete form.dataset.sending;
      if (button) {
        button.disabled = false;
      }
      bar.remove();
      label.textContent = "The upload did not reach the server. Check the connection and try again.";
    });
    xhr.send(new FormData(form));
  });
}

// A page put in place by the script has no history entry of its own to go
// back to: going back loads the address from the server.
window.addEventListener("popstate", () => location.reload());
document.addEventListener("DOMContentLoaded", bindImportForm);
