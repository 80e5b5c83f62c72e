/**
 * @module emulator/dashboard/assets/style
 * The dashboard's style sheet: system fonts, light and dark schemes, no external resources.
 */
export const STYLE_CSS = String.raw`
:root {
  --bg: #f6f7f9; --panel: #fff; --text: #1d2330; --muted: #5d6675; --line: #dde1e7; --accent: #2f5bd3;
  --ok: #1e7d46; --ok-bg: #e3f4ea; --warn: #8a5a00; --warn-bg: #fff1d1; --bad: #a32121; --bad-bg: #fde4e4;
  --info-bg: #e7edfb; --none-bg: #f0f1f4;
  color-scheme: light dark;
}
@media (prefers-color-scheme: dark) {
  :root {
    --bg: #14171c; --panel: #1c2027; --text: #e4e7ec; --muted: #9aa3b2; --line: #2e343e; --accent: #7ea2ff;
    --ok: #7bd49d; --ok-bg: #16321f; --warn: #f0c060; --warn-bg: #3a2d10; --bad: #ff9a9a; --bad-bg: #3d1818;
    --info-bg: #1e2a45; --none-bg: #242931;
  }
}
* { box-sizing: border-box; }
body { margin: 0; font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; background: var(--bg); color: var(--text); }
header { position: sticky; top: 0; z-index: 2; display: flex; flex-wrap: wrap; gap: 8px 18px; align-items: center; padding: 10px 20px; background: var(--panel); border-bottom: 1px solid var(--line); }
h1 { font-size: 17px; margin: 0; font-weight: 650; }
h1 span { color: var(--muted); font-weight: 400; }
header select { font: inherit; padding: 3px 6px; max-width: 340px; }
nav { display: flex; gap: 4px; }
nav a { padding: 5px 12px; border-radius: 6px; color: var(--text); text-decoration: none; }
nav a.active { background: var(--info-bg); color: var(--accent); font-weight: 600; }
button { font: inherit; padding: 4px 12px; border: 1px solid var(--line); border-radius: 6px; background: var(--panel); color: var(--text); cursor: pointer; }
button:hover { border-color: var(--accent); }
button.approve { background: var(--ok-bg); color: var(--ok); border-color: var(--ok); }
button.reject { background: var(--bad-bg); color: var(--bad); border-color: var(--bad); }
button:disabled { opacity: .5; cursor: default; }
label.auto { color: var(--muted); }
main { padding: 16px 20px 60px; max-width: 1400px; margin: 0 auto; }
h2 { font-size: 15px; margin: 0 0 8px; display: flex; gap: 8px; align-items: baseline; }
h2 .count { color: var(--muted); font-weight: 400; font-size: 13px; }
.card { background: var(--panel); border: 1px solid var(--line); border-radius: 8px; padding: 12px 14px; margin-bottom: 14px; }
.grid { display: grid; grid-template-columns: repeat(auto-fill, minmax(560px, 1fr)); gap: 0 14px; }
table { border-collapse: collapse; width: 100%; }
th, td { text-align: left; padding: 5px 8px; border-bottom: 1px solid var(--line); vertical-align: top; }
/* A long name (user input) breaks where it must; the id columns keep room for an id. */
td { overflow-wrap: break-word; }
td.mono { min-width: 10em; }
.card { overflow-x: auto; }
#reset { margin-left: auto; }
th { color: var(--muted); font-weight: 500; font-size: 12px; }
tr:last-child td { border-bottom: 0; }
code, .mono { font: 12px/1.4 ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; overflow-wrap: anywhere; }
.muted { color: var(--muted); }
.empty { color: var(--muted); font-style: italic; }
.pill { display: inline-block; padding: 0 7px; border-radius: 10px; font-size: 12px; background: var(--none-bg); margin: 1px 3px 1px 0; white-space: nowrap; }
.st-ACTIVITY_STATUS_COMPLETED, .o-OUTCOME_ALLOW { background: var(--ok-bg); color: var(--ok); }
.st-ACTIVITY_STATUS_CONSENSUS_NEEDED, .o-OUTCOME_REQUIRES_CONSENSUS { background: var(--warn-bg); color: var(--warn); }
.st-ACTIVITY_STATUS_FAILED, .st-ACTIVITY_STATUS_REJECTED, .st-DENIED_BY_POLICY, .o-OUTCOME_DENY_EXPLICIT, .o-OUTCOME_ERROR { background: var(--bad-bg); color: var(--bad); }
.effect-EFFECT_ALLOW { color: var(--ok); font-weight: 600; }
.effect-EFFECT_DENY { color: var(--bad); font-weight: 600; }
.activity { border-left: 4px solid var(--line); }
.activity.waiting { border-left-color: var(--warn); }
.activity.bad { border-left-color: var(--bad); }
.activity.done { border-left-color: var(--ok); }
.activity .head { display: flex; flex-wrap: wrap; gap: 6px 12px; align-items: baseline; }
.activity .type { font-weight: 600; }
.reason { margin: 8px 0; padding: 6px 10px; border-radius: 6px; background: var(--warn-bg); color: var(--warn); }
.reason.bad { background: var(--bad-bg); color: var(--bad); }
.vote { display: flex; flex-wrap: wrap; gap: 8px; align-items: center; margin-top: 8px; }
.vote select { font: inherit; padding: 3px 6px; }
details summary { cursor: pointer; color: var(--muted); margin-top: 6px; }
pre { margin: 6px 0 0; padding: 8px; background: var(--bg); border-radius: 6px; overflow: auto; max-height: 280px; }
.toolbar { display: flex; flex-wrap: wrap; gap: 12px; align-items: center; margin-bottom: 10px; }
.matrix-wrap { width: fit-content; max-width: 100%; overflow: auto; max-height: 70vh; border: 1px solid var(--line); border-radius: 8px; background: var(--panel); }
table.matrix { width: auto; }
table.matrix th.kind { writing-mode: vertical-rl; transform: rotate(180deg); white-space: nowrap; font-size: 11px; padding: 8px 3px; position: sticky; top: 0; background: var(--panel); }
table.matrix th.user { position: sticky; left: 0; background: var(--panel); white-space: nowrap; z-index: 1; }
table.matrix td { text-align: center; padding: 3px; min-width: 26px; border: 1px solid var(--line); font-size: 12px; }
.c-refused { background: var(--none-bg); color: var(--muted); }
.c-alone { background: var(--ok-bg); color: var(--ok); }
.c-with-approvers { background: var(--warn-bg); color: var(--warn); }
.c-root-quorum { background: var(--info-bg); color: var(--accent); }
.c-not-proved { background: var(--bad-bg); color: var(--bad); font-weight: 700; }
.legend span { margin-right: 10px; }
#cell-about { margin: 6px 0 8px; min-height: 1.4em; }
table.matrix td { cursor: pointer; }
.ref { display: inline-block; padding: 0 5px; border-radius: 4px; background: var(--info-bg); color: var(--accent); font-family: system-ui, sans-serif; }
.code { font-size: 14px; letter-spacing: 1px; }
.confirm { display: flex; flex-wrap: wrap; gap: 8px 12px; align-items: center; padding: 10px 20px; background: var(--bad-bg); color: var(--bad); border-bottom: 1px solid var(--bad); }
.confirm[hidden] { display: none; }
#toast { position: fixed; bottom: 16px; right: 16px; max-width: 480px; padding: 8px 14px; border-radius: 8px; background: var(--text); color: var(--bg); opacity: 0; transition: opacity .2s; pointer-events: none; }
#toast.show { opacity: .95; }
`;
