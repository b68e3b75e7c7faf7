// zone.js chooses the browser's own timezone in a select marked
// data-browser-zone, when the select offers it. The server chose its own
// zone beforehand, so the page works the same without this script.
(function () {
  var zone;
  try {
    zone = Intl.DateTimeFormat().resolvedOptions().timeZone;
  } catch (e) {
    return;
  }
  if (!zone) {
    return;
  }
  document.querySelectorAll("select[data-browser-zone]").forEach(function (select) {
    for (var i = 0; i < select.options.length; i++) {
      if (select.options[i].value === zone) {
        select.value = zone;
        return;
      }
    }
  });
})();
