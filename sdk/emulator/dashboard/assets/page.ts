/**
 * @module emulator/dashboard/assets/page
 * The dashboard's HTML shell. The page is static; `script.ts` fills it from the JSON endpoints.
 */
import { DASHBOARD_ASSETS } from "../paths";

export const PAGE_HTML = String.raw`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>keyform emulator</title>
<link rel="stylesheet" href="${DASHBOARD_ASSETS}/dashboard.css">
</head>
<body>
<header>
  <h1>keyform <span>emulator</span></h1>
  <label>Organization <select id="org" data-testid="org-picker"></select></label>
  <nav>
    <a href="#objects" data-section="objects">Objects</a>
    <a href="#activity" data-section="activity">Activity</a>
    <a href="#access" data-section="access">Access</a>
  </nav>
  <button id="refresh" type="button" title="Read the emulator again">Refresh</button>
  <label class="auto"><input id="auto" type="checkbox" checked> live</label>
</header>
<main>
  <section id="objects" data-testid="section-objects"></section>
  <section id="activity" data-testid="section-activity" hidden></section>
  <section id="access" data-testid="section-access" hidden></section>
</main>
<div id="toast" role="status" aria-live="polite"></div>
<script src="${DASHBOARD_ASSETS}/dashboard.js"></script>
</body>
</html>
`;
