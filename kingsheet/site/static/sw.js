// The phone app offline: every file of this build is kept at install, and served from the cache
// first; a new build (another version) replaces the old cache once it is whole.
"use strict";
const VERSION = "{version}";
const FILES = [/*files*/];
const CACHE = "kingsheet-files-" + VERSION;  // (the worker keeps its memory snapshot apart)

self.addEventListener("install", (ev) => {
  ev.waitUntil(caches.open(CACHE).then((c) => c.addAll(FILES)).then(() => self.skipWaiting()));
});

self.addEventListener("activate", (ev) => {
  ev.waitUntil(caches.keys().then((keys) => Promise.all(
    keys.filter((k) => k.startsWith("kingsheet-files-") && k !== CACHE).map((k) => caches.delete(k))))
    .then(() => self.clients.claim()));
});

self.addEventListener("fetch", (ev) => {
  if (ev.request.method !== "GET") return;
  const url = new URL(ev.request.url);
  if (url.origin !== location.origin) return;
  ev.respondWith(caches.open(CACHE).then(async (c) => {
    const hit = await c.match(ev.request, {ignoreSearch: true});
    if (hit) return hit;
    return fetch(ev.request);
  }));
});
