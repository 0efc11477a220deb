// The offline worker of one mock-exam sitting, registered by mock-saves.js with the sitting's
// address (/progress/mocks/<code>/) as its scope, so that it sees that sitting's pages only.
//
// It keeps the sitting's question pages (and the styles, scripts and images they use) in a
// cache of its own, so that a learner whose connection drops can go on from question to
// question; the answers themselves wait in the page's storage (mock-saves.js), not here.
// Pages come from the network whenever it answers: a kept page is used only offline.
//
// The pages hold the stems and option texts only (no correct answer is sent during a
// sitting), and they are the learner's own: the cache is deleted, and the worker unregisters
// itself, as soon as the sitting's report is reached (submitted, or time up). Signing out
// clears it too (Clear-Site-Data on the sign-out response).
"use strict";

var SCOPE = new URL(self.registration.scope).pathname; // ends with a slash
var CACHE = "courseiva-sitting:" + SCOPE;
var ITEM = /^\d+\/$/; // a question's page, below the scope
var OVER = /^(report|review)\/$/; // the sitting is over once these are served

function below(url) {
  return url.origin === self.location.origin && url.pathname.indexOf(SCOPE) === 0
    ? url.pathname.slice(SCOPE.length)
    : null;
}

function isItem(url) {
  var rest = below(url);
  return rest !== null && ITEM.test(rest);
}

function isOver(url) {
  var rest = below(url);
  return rest !== null && OVER.test(rest);
}

// The sitting is over: nothing of it stays in the browser.
function forget() {
  return caches.delete(CACHE).then(function () {
    return self.registration.unregister();
  });
}

self.addEventListener("install", function () {
  self.skipWaiting();
});

self.addEventListener("activate", function (event) {
  event.waitUntil(self.clients.claim());
});

self.addEventListener("fetch", function (event) {
  var request = event.request;
  var url = new URL(request.url);
  if (url.origin !== self.location.origin) return;
  if (request.mode === "navigate") {
    event.respondWith(navigate(event, url));
  } else if (request.method === "GET" && /^(style|script|image|font)$/.test(request.destination)) {
    event.respondWith(asset(request));
  }
});

function navigate(event, url) {
  var request = event.request;
  return fetch(request).then(function (response) {
    if (isOver(url)) {
      event.waitUntil(forget());
    } else if (request.method === "GET" && isItem(url) && response.status === 200 && !response.redirected) {
      var copy = response.clone();
      event.waitUntil(caches.open(CACHE).then(function (cache) { return cache.put(url.href, copy); }));
    }
    return response;
  }, function () {
    var kept = request.method === "GET" && isItem(url)
      ? caches.open(CACHE).then(function (cache) { return cache.match(url.href, {ignoreVary: true}); })
      : Promise.resolve(undefined);
    return kept.then(function (response) { return response ? marked(response) : offlinePage(); });
  });
}

// A kept page, marked as such: the page then knows that the time it was served is not now.
function marked(response) {
  return response.text().then(function (html) {
    return new Response(html.replace(" data-served-at=", " data-kept-copy data-served-at="), {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
  });
}

function asset(request) {
  return fetch(request).then(function (response) {
    if (response.ok && response.type === "basic") {
      var copy = response.clone();
      caches.open(CACHE).then(function (cache) { return cache.put(request, copy); });
    }
    return response;
  }, function (error) {
    return caches.open(CACHE).then(function (cache) {
      return cache.match(request, {ignoreVary: true});
    }).then(function (response) {
      if (response) return response;
      throw error;
    });
  });
}

// A page of the sitting that was not kept (the review page, a submission), asked for offline.
function offlinePage() {
  var first = SCOPE + "1/";
  var body = "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\">" +
    "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">" +
    "<title>You are offline · Courseiva</title></head><body><main>" +
    "<h1>You are offline</h1>" +
    "<p>This page needs the connection. Your answers are kept in this browser and are sent " +
    "when the connection returns; the server accepts those that reach it before the time is " +
    "up.</p>" +
    "<p><a href=\"" + first + "\">Back to the questions</a></p></main></body></html>";
  return new Response(body, {
    status: 503,
    headers: {"Content-Type": "text/html; charset=utf-8", "Cache-Control": "no-store"},
  });
}

// The page asks for the sitting's question pages to be kept: each one not kept yet is
// fetched, one after the other (so that a sitting's start does not ask the server for them
// all at once), with what it needs to be shown; the page is told how many are kept.
self.addEventListener("message", function (event) {
  var data = event.data || {};
  if (data.type !== "keep" || !Array.isArray(data.urls)) return;
  event.waitUntil(keep(data.urls).then(function (kept) {
    if (event.source && kept !== null) {
      event.source.postMessage({type: "kept", kept: kept, of: data.urls.length});
    }
  }));
});

function keep(urls) {
  return caches.open(CACHE).then(function (cache) {
    var kept = 0;
    var over = false;
    return urls.reduce(function (chain, href) {
      return chain.then(function () {
        var url = new URL(href, self.location.origin);
        if (over || !isItem(url)) return undefined;
        return cache.match(url.href, {ignoreVary: true}).then(function (found) {
          if (found) { kept += 1; return undefined; }
          // Said to be a keeping, not a visit: a question ahead of the sitting's open
          // section (or, forward-only, the next question) is then not given, rather than
          // moving the sitting on as the learner's own visit does.
          var keeping = {credentials: "same-origin", headers: {"X-Keep-Offline": "1"}};
          return fetch(url.href, keeping).then(function (response) {
            if (response.redirected && isOver(new URL(response.url))) {
              over = true; // submitted, or the time is up: keep nothing
              return undefined;
            }
            if (response.status !== 200 || response.redirected) return undefined;
            return response.clone().text().then(function (html) {
              return cache.put(url.href, response).then(function () {
                kept += 1;
                return keepAssets(cache, html);
              });
            });
          });
        });
      });
    }, Promise.resolve()).then(function () {
      return over ? forget().then(function () { return null; }) : kept;
    });
  }).catch(function () {
    return null; // offline before every page was kept: the next page load asks again
  });
}

// The same-origin scripts, styles and images a kept page uses, that a page not opened yet
// would need offline (an ordering's drag and drop, a question's image).
function keepAssets(cache, html) {
  var found = html.match(/<(?:script|img|link)\b[^>]*>/g) || [];
  var hrefs = found.map(function (tag) {
    var src = /\s(?:src|href)="([^"]+)"/.exec(tag);
    return src ? src[1].replace(/&amp;/g, "&") : null;
  }).filter(function (href) {
    if (!href) return false;
    var url = new URL(href, self.location.origin);
    return url.origin === self.location.origin && below(url) === null &&
      !/\/(accounts|admin)\//.test(url.pathname);
  });
  return hrefs.reduce(function (chain, href) {
    return chain.then(function () {
      return cache.match(href, {ignoreVary: true}).then(function (hit) {
        if (hit) return undefined;
        return fetch(href).then(function (response) {
          if (response.ok && response.type === "basic") return cache.put(href, response);
          return undefined;
        }, function () { return undefined; });
      });
    });
  }, Promise.resolve());
}
