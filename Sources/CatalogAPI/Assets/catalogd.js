// catalogd's pages work without this script; with it, a search follows typing, and the change feed page is live.
"use strict";

// As-you-type: a pause in typing fetches the same page for the new search and swaps its results in.
(function () {
  const form = document.querySelector("form.search");
  const input = form && form.querySelector("input[name=search]");
  if (!input) return;
  let timer = null;
  let latest = 0;
  input.addEventListener("input", function () {
    clearTimeout(timer);
    timer = setTimeout(async function () {
      // The service's own form of the URL: no empty fields, spaces as %20 (see PageURLs.canonical).
      const fields = [];
      for (const [name, value] of new FormData(form)) {
        if (value !== "") fields.push(encodeURIComponent(name) + "=" + encodeURIComponent(value));
      }
      const url = form.action + "?" + fields.join("&");
      const ticket = ++latest;
      try {
        const response = await fetch(url, { headers: { Accept: "text/html" } });
        if (!response.ok || ticket !== latest) return;
        const page = new DOMParser().parseFromString(await response.text(), "text/html");
        const fresh = page.getElementById("results");
        const current = document.getElementById("results");
        if (fresh && current) {
          current.replaceWith(fresh);
          history.replaceState(null, "", url);
        }
      } catch (error) {
        // The form still submits as a plain GET.
      }
    }, 250);
  });
})();

// The change feed, live: each change the server sends is added at the top of the list.
(function () {
  const list = document.getElementById("live-changes");
  if (!list || !window.EventSource) return;
  const since = list.getAttribute("data-since") || "0";
  const source = new EventSource(list.getAttribute("data-stream") + "&since=" + encodeURIComponent(since));
  source.addEventListener("change", function (event) {
    const change = JSON.parse(event.data);
    // The shape ChangesPage.item writes; text only, so that no value becomes markup.
    const item = document.createElement("li");
    item.value = change.seq;
    item.append("#" + change.seq + " " + change.op + " " + change.entity + " ");
    if (change.op === "delete") {
      item.append(change.key);
    } else {
      const link = document.createElement("a");
      link.href = (change.entity === "product" ? "/products/" : "/films/") + encodeURIComponent(change.key);
      link.textContent = change.key;
      item.append(link);
    }
    item.append(" by " + change.author + " at " + change.at);
    list.prepend(item);
  });
})();
