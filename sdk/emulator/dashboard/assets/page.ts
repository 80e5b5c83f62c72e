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
<link rel="icon" href="/favicon.ico" type="image/svg+xml">
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
    <a href="#webhooks" data-section="webhooks">Webhooks</a>
    <a href="#auth" data-section="auth">Auth</a>
    <a href="#requests" data-section="requests">Requests</a>
  </nav>
  <button id="refresh" type="button" title="Read the emulator again">Refresh</button>
  <label class="auto"><input id="auto" type="checkbox" checked> live</label>
  <button id="reset" type="button" class="reject" data-testid="reset" title="Delete everything and start again from the first start's organization">Reset data&hellip;</button>
</header>
<div id="reset-confirm" class="confirm" data-testid="reset-confirm" hidden>
  <strong>Reset the emulator's data?</strong>
  Every organization, user, policy, wallet, key, activity, webhook and OTP goes; the root organization comes back as at the first start, with the same bootstrap API key (clients built from bootstrap.json keep working).
  <button id="reset-yes" type="button" class="reject" data-testid="reset-yes">Reset everything</button>
  <button id="reset-no" type="button" data-testid="reset-no">Cancel</button>
</div>
<main>
  <section id="objects" data-testid="section-objects"></section>
  <section id="activity" data-testid="section-activity" hidden></section>
  <section id="access" data-testid="section-access" hidden></section>
  <section id="webhooks" data-testid="section-webhooks" hidden></section>
  <section id="auth" data-testid="section-auth" hidden></section>
  <section id="requests" data-testid="section-requests" hidden></section>
</main>
<div id="toast" role="status" aria-live="polite"></div>
<script src="${DASHBOARD_ASSETS}/dashboard.js"></script>
</body>
</html>
`;
