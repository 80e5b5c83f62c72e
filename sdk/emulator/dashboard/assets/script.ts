/**
 * @module emulator/dashboard/assets/script
 * The dashboard's browser script, plain JavaScript shipped as is (no framework, no build step):
 * reads the dashboard's JSON endpoints, draws the sections, sends votes and the reset. Every value
 * from the emulator goes into the page as text (`textContent`), never as markup.
 *
 * It is kept in a String.raw template, so it must not contain a backtick or a dollar sign
 * followed by a brace (test/emulator/dashboard.test.ts checks that the script parses).
 */
import { DASHBOARD_API, DASHBOARD_VOTE_HEADER } from "../paths";

export const SCRIPT_JS =
  String.raw`"use strict";
(function () {
var API = "` +
  DASHBOARD_API +
  String.raw`";
var VOTE_HEADER = "` +
  DASHBOARD_VOTE_HEADER +
  String.raw`";
var SECTIONS = ["objects", "activity", "access", "webhooks", "auth", "requests"];
// Sections read again every two seconds while "live" is ticked.
var LIVE = ["activity", "webhooks", "auth", "requests"];
var state = { org: "", section: "objects", feedKey: "" };

function h(tag, attrs, children) {
  var el = document.createElement(tag);
  if (attrs) {
    Object.keys(attrs).forEach(function (k) {
      var v = attrs[k];
      if (v === undefined || v === null || v === false) return;
      if (k === "text") el.textContent = String(v);
      else if (k === "onclick" || k === "onchange") el[k] = v;
      else el.setAttribute(k, v === true ? "" : String(v));
    });
  }
  (children || []).forEach(function (c) {
    if (c === undefined || c === null || c === false) return;
    el.appendChild(typeof c === "string" ? document.createTextNode(c) : c);
  });
  return el;
}
function pill(text, cls, testid) { return h("span", { "class": "pill " + (cls || ""), text: text, "data-testid": testid }); }
function short(type) { return String(type || "").replace(/^ACTIVITY_TYPE_/, "").replace(/^ACTIVITY_STATUS_/, "").replace(/^OUTCOME_/, ""); }
function when(ms) { return ms ? new Date(Number(ms)).toLocaleString() : ""; }
function tsMs(t) { return t && t.seconds ? Number(t.seconds) * 1000 : 0; }
function toast(text) {
  var t = document.getElementById("toast");
  t.textContent = text;
  t.className = "show";
  clearTimeout(toast.timer);
  toast.timer = setTimeout(function () { t.className = ""; }, 4000);
}
function getJson(path) {
  return fetch(API + path, { headers: { accept: "application/json" } }).then(function (r) {
    return r.json().then(function (body) {
      if (!r.ok) throw new Error(body && body.message ? body.message : "HTTP " + r.status);
      return body;
    });
  });
}
function card(title, count, body, testid) {
  return h("div", { "class": "card", "data-testid": testid }, [
    h("h2", null, [title, count === undefined ? null : h("span", { "class": "count", text: String(count) })]),
    body,
  ]);
}
function table(headers, rows, empty) {
  if (rows.length === 0) return h("div", { "class": "empty", text: empty || "none" });
  return h("table", null, [
    h("thead", null, [h("tr", null, headers.map(function (x) { return h("th", { text: x }); }))]),
    h("tbody", null, rows),
  ]);
}
function td(content, cls) {
  if (content instanceof Node) return h("td", { "class": cls }, [content]);
  return h("td", { "class": cls, text: content === undefined || content === null ? "" : String(content) });
}

// A policy expression with the ids it names shown as the names (the id on hover).
function named(text, refs) {
  if (!text) return "\u2014";
  var parts = [text];
  (refs || []).forEach(function (r) {
    parts = parts.reduce(function (out, part) {
      if (typeof part !== "string") return out.concat([part]);
      var pieces = part.split(r.id);
      pieces.forEach(function (piece, i) {
        // The quotes around the id go with it.
        if (i > 0) out.push(h("span", { "class": "ref", "data-testid": "ref", title: r.kind + " " + r.id, text: r.kind + " " + r.name }));
        out.push(piece.replace(/^'/, i > 0 ? "" : "$&").replace(/'$/, i < pieces.length - 1 ? "" : "$&"));
      });
      return out;
    }, []);
  });
  return h("span", null, parts.filter(function (p) { return p !== ""; }));
}

/* ---------- organizations ---------- */
function loadOrganizations() {
  return getJson("/organizations").then(function (orgs) {
    var select = document.getElementById("org");
    select.textContent = "";
    orgs.forEach(function (o) {
      select.appendChild(h("option", { value: o.id, text: (o.parentId ? "\u21b3 " : "") + o.name + " (" + o.id.slice(0, 8) + ")" }));
    });
    var wanted = new URLSearchParams(location.search).get("org");
    state.org = orgs.some(function (o) { return o.id === wanted; }) ? wanted : orgs.length ? orgs[0].id : "";
    select.value = state.org;
  });
}

/* ---------- objects ---------- */
function renderObjects(o) {
  var names = {};
  o.users.forEach(function (u) { names[u.userId] = u.userName; });
  var tagNames = {};
  o.userTags.concat(o.privateKeyTags).forEach(function (t) { tagNames[t.tagId] = t.tagName; });
  var tagPills = function (ids) { return h("span", null, (ids || []).map(function (id) { return pill(tagNames[id] || id); })); };
  var quorum = o.organization.rootQuorum;
  var section = document.getElementById("objects");
  section.textContent = "";
  section.appendChild(card("Organization", undefined, table(["name", "id", "parent", "root quorum"], [
    h("tr", null, [
      td(o.organization.name), td(o.organization.id, "mono"), td(o.organization.parentId || "\u2014", "mono"),
      td(quorum.threshold + " of " + quorum.userIds.map(function (id) { return names[id] || id; }).join(", ")),
    ]),
  ]), "card-organization"));
  var grid = h("div", { "class": "grid" });
  section.appendChild(grid);
  grid.appendChild(card("Users", o.users.length, table(["name", "email", "tags", "credentials", "id"], o.users.map(function (u) {
    return h("tr", { "data-testid": "user-row" }, [
      td(u.userName), td(u.userEmail || ""), td(tagPills(u.userTags)),
      td(u.apiKeys.length + " API key" + (u.apiKeys.length === 1 ? "" : "s") + (u.authenticators.length ? ", " + u.authenticators.length + " passkey(s)" : "")),
      td(u.userId, "mono"),
    ]);
  })), "card-users"));
  grid.appendChild(card("User tags", o.userTags.length, table(["name", "members", "id"], o.userTags.map(function (t) {
    var members = o.users.filter(function (u) { return (u.userTags || []).indexOf(t.tagId) >= 0; }).map(function (u) { return u.userName; });
    return h("tr", { "data-testid": "tag-row" }, [td(t.tagName), td(members.join(", ")), td(t.tagId, "mono")]);
  })), "card-user-tags"));
  section.appendChild(card("Policies", o.policies.length, table(["name", "effect", "condition", "consensus", "notes"], o.policies.map(function (p) {
    return h("tr", { "data-testid": "policy-row" }, [
      td(p.policyName), td(short(p.effect).replace(/^EFFECT_/, ""), "effect-" + p.effect),
      td(named(p.condition, p.references), "mono"), td(named(p.consensus, p.references), "mono"), td(p.notes || ""),
    ]);
  })), "card-policies"));
  grid = h("div", { "class": "grid" });
  section.appendChild(grid);
  grid.appendChild(card("API keys", o.apiKeys.length, table(["name", "user", "type", "expires", "id"], o.apiKeys.map(function (k) {
    var expires = k.expirationSeconds ? when(tsMs(k.createdAt) + Number(k.expirationSeconds) * 1000) : "never";
    return h("tr", { "data-testid": "api-key-row" }, [
      td(k.apiKeyName), td(names[k.userId] || k.userId), td(short(k.credential.type).replace(/^CREDENTIAL_TYPE_/, "")), td(expires), td(k.apiKeyId, "mono"),
    ]);
  })), "card-api-keys"));
  grid.appendChild(card("Wallets", o.wallets.length, table(["name", "accounts", "id"], o.wallets.map(function (w) {
    var accounts = h("div", null, w.accounts.map(function (a) {
      return h("div", null, [h("span", { "class": "mono", text: a.address }), h("span", { "class": "muted", text: "  " + a.path })]);
    }));
    return h("tr", { "data-testid": "wallet-row" }, [td(w.walletName), td(accounts), td(w.walletId, "mono")]);
  })), "card-wallets"));
  grid.appendChild(card("Private keys", o.privateKeys.length, table(["name", "curve", "tags", "addresses", "id"], o.privateKeys.map(function (k) {
    var addresses = h("div", null, k.addresses.map(function (a) { return h("div", { "class": "mono", text: a.address }); }));
    return h("tr", { "data-testid": "private-key-row" }, [
      td(k.privateKeyName), td(short(k.curve).replace(/^CURVE_/, "")), td(tagPills(k.privateKeyTags)), td(addresses), td(k.privateKeyId, "mono"),
    ]);
  })), "card-private-keys"));
  grid.appendChild(card("Invitations", o.invitations.length, table(["receiver", "email", "status", "sent by", "id"], o.invitations.map(function (i) {
    return h("tr", { "data-testid": "invitation-row" }, [
      td(i.receiverUserName), td(i.receiverEmail), td(short(i.status).replace(/^INVITATION_STATUS_/, "")), td(names[i.senderUserId] || i.senderUserId), td(i.invitationId, "mono"),
    ]);
  })), "card-invitations"));
  grid.appendChild(card("Private key tags", o.privateKeyTags.length, table(["name", "id"], o.privateKeyTags.map(function (t) {
    return h("tr", null, [td(t.tagName), td(t.tagId, "mono")]);
  })), "card-private-key-tags"));
  grid.appendChild(card("Smart contract interfaces", o.smartContractInterfaces.length, table(["label", "type", "address"], o.smartContractInterfaces.map(function (s) {
    return h("tr", null, [td(s.label), td(short(s.type)), td(s.smartContractAddress, "mono")]);
  })), "card-contracts"));
}

/* ---------- activity ---------- */
function statusClass(a) {
  if (a.status === "ACTIVITY_STATUS_CONSENSUS_NEEDED") return "waiting";
  if (a.status === "ACTIVITY_STATUS_COMPLETED") return "done";
  return "bad";
}
function evaluationTable(policies) {
  var why = policies.some(function (p) { return p.reason; });
  return table(why ? ["policy", "outcome", "why"] : ["policy", "outcome"], policies.map(function (p) {
    return h("tr", null, [td(p.policyName), td(pill(short(p.outcome), "o-" + p.outcome)), why ? td(p.reason || "", "mono") : null]);
  }), "the organization has no policies");
}
function voteControls(a) {
  var w = a.waiting;
  if (!w || !a.fingerprint) return null;
  if (w.voters.length === 0) {
    return h("div", { "class": "vote muted", "data-testid": "no-voters", text: w.heldBy === "root quorum" ? "everyone who may vote has voted" : "no user who has not voted yet can make the policy's consensus hold" });
  }
  var select = h("select", { "data-testid": "voter", "aria-label": "vote as" }, w.voters.map(function (v) { return h("option", { value: v.id, text: v.name }); }));
  var send = function (approve) {
    return function (ev) {
      ev.target.disabled = true;
      fetch(API + "/organizations/" + encodeURIComponent(state.org) + "/votes", {
        method: "POST",
        headers: (function () { var x = { "content-type": "application/json" }; x[VOTE_HEADER] = "1"; return x; })(),
        body: JSON.stringify({ fingerprint: a.fingerprint, userId: select.value, approve: approve }),
      }).then(function (r) {
        return r.json().then(function (body) {
          if (!r.ok) throw new Error(body && body.message ? body.message : "HTTP " + r.status);
          toast((approve ? "Approved" : "Rejected") + " as " + select.options[select.selectedIndex].text + ": " + short(a.type));
        });
      }).catch(function (e) { toast("Vote refused: " + e.message); }).then(refresh);
    };
  };
  return h("div", { "class": "vote" }, [
    h("span", { "class": "muted", text: "Vote as" }), select,
    h("span", { "class": "muted", text: w.heldBy === "root quorum" ? "(root quorum members who have not voted)" : "(users whose approval the consensus can count)" }),
    h("button", { "class": "approve", type: "button", "data-testid": "approve", onclick: send(true), text: "Approve" }),
    h("button", { "class": "reject", type: "button", "data-testid": "reject", onclick: send(false), text: "Reject" }),
  ]);
}
var activityFilter = "all";
function renderActivity(feed) {
  var section = document.getElementById("activity");
  section.textContent = "";
  var waiting = feed.filter(function (a) { return a.status === "ACTIVITY_STATUS_CONSENSUS_NEEDED"; }).length;
  var filter = h("select", { "data-testid": "activity-filter", "aria-label": "show", onchange: function () { activityFilter = filter.value; renderActivity(feed); } }, [
    h("option", { value: "all", text: "all activities" }),
    h("option", { value: "waiting", text: "waiting for consensus" }),
    h("option", { value: "refused", text: "denied, failed or rejected" }),
  ]);
  filter.value = activityFilter;
  section.appendChild(h("div", { "class": "toolbar" }, [
    h("h2", null, ["Activity", h("span", { "class": "count", text: feed.length + " shown, " + waiting + " waiting for consensus" })]),
    filter,
  ]));
  var shown = feed.filter(function (a) {
    if (activityFilter === "waiting") return a.status === "ACTIVITY_STATUS_CONSENSUS_NEEDED";
    if (activityFilter === "refused") return statusClass(a) === "bad";
    return true;
  });
  if (shown.length === 0) section.appendChild(h("div", { "class": "card empty", text: feed.length === 0 ? "no activities yet" : "none of these" }));
  shown.forEach(function (a) {
    var reason = null;
    if (a.waiting) reason = h("div", { "class": "reason", "data-testid": "reason", text: "Waits for " + a.waiting.heldBy + ": " + a.waiting.reason });
    else if (a.kind === "denial") reason = h("div", { "class": "reason bad", "data-testid": "reason", text: "Denied (nothing recorded): " + a.reason });
    else if (a.failure) reason = h("div", { "class": "reason bad", "data-testid": "reason", text: "Failed: " + a.failure.message });
    else if (a.status === "ACTIVITY_STATUS_REJECTED") reason = h("div", { "class": "reason bad", "data-testid": "reason", text: "Rejected by a vote" });
    var rounds = (a.evaluations || []).map(function (round, i) {
      return h("div", null, [h("div", { "class": "muted", text: (i === 0 ? "Policies at submission" : "Policies at approval " + i) + " \u00b7 " + when(round.atMs) }), evaluationTable(round.policies)]);
    });
    if (a.waiting) {
      // What decides a waiting activity is the evaluation now; the recorded ones are history.
      rounds = [
        h("div", { "data-testid": "evaluation-now" }, [h("div", { "class": "muted", text: "Policies now, with the approvals so far" }), evaluationTable(a.waiting.now)]),
        rounds.length ? h("details", null, [h("summary", { text: "recorded evaluations (" + rounds.length + ")" })].concat(rounds)) : null,
      ];
    }
    var votes = (a.votes || []).length
      ? h("div", { "class": "muted", "data-testid": "votes" }, ["Votes: "].concat(a.votes.map(function (v) { return h("span", { title: when(v.atMs) }, [pill(v.userName + " " + (v.selection === "VOTE_SELECTION_APPROVED" ? "\u2713" : "\u2717"))]); })))
      : null;
    section.appendChild(h("div", { "class": "card activity " + statusClass(a), "data-testid": "activity", "data-type": a.type, "data-status": a.status, "data-id": a.id }, [
      h("div", { "class": "head" }, [
        h("span", { "class": "type", text: short(a.type) }),
        pill(short(a.status), "st-" + a.status, "status"),
        h("span", { "class": "muted", text: when(a.createdMs) }),
        a.votesOn ? h("span", { text: "on " + short(a.votesOn.type) + " " + a.votesOn.id.slice(0, 8) }) : null,
        a.submittedBy ? h("span", { "class": "muted", "data-testid": "submitter", text: "by " + a.submittedBy.name }) : null,
        a.id ? h("span", { "class": "muted mono", text: a.id }) : null,
      ]),
      a.signing ? h("div", { "class": "muted mono", "data-testid": "signing", text: "Signs: " + a.signing }) : null,
      reason,
      a.notEvaluated ? h("div", { "class": "muted", text: a.notEvaluated === "vote" ? "A vote: policies do not decide votes." : "Ran as the root quorum: policies were not evaluated." }) : null,
      rounds.length ? h("div", null, rounds) : null,
      votes,
      voteControls(a),
      a.intent ? h("details", null, [h("summary", { text: "request and result" }), h("pre", { "class": "mono", text: JSON.stringify({ intent: a.intent, result: a.result }, null, 2) })]) : null,
    ]));
  });
}

/* ---------- access ---------- */
var CELL_WORDS = { refused: "refused (proved for every request)", alone: "allowed alone", "with approvers": "allowed with approvals", "root quorum": "the user alone is the root quorum: policies are bypassed", "not proved": "not proved" };
var CELL_TEXT = { refused: "\u00b7", alone: "\u2713", "with approvers": "\u2713+", "root quorum": "R", "not proved": "?" };
var showAllKinds = false;
var lastMatrix = null;
function renderAccess(m) {
  lastMatrix = m;
  var section = document.getElementById("access");
  section.textContent = "";
  var kinds = m.kinds.map(function (k, i) { return i; }).filter(function (k) {
    return showAllKinds || m.cells.some(function (row, u) { return row[k] !== "refused" && m.users[u].standing === "user"; });
  });
  var toggle = h("input", { type: "checkbox", id: "allkinds", onchange: function () { showAllKinds = toggle.checked; renderAccess(lastMatrix); } });
  toggle.checked = showAllKinds;
  section.appendChild(h("div", { "class": "toolbar" }, [
    h("h2", null, ["Access", h("span", { "class": "count", text: m.users.length + " users \u00d7 " + m.kinds.length + " activity kinds, from " + m.policyCount + " policies (proved in " + m.computedMs + " ms)" })]),
    h("label", null, [toggle, " show every kind (else only kinds some non-root user may submit)"]),
  ]));
  section.appendChild(h("div", { "class": "legend muted" }, [
    h("span", null, [pill(CELL_TEXT.alone, "c-alone"), " allowed alone"]),
    h("span", null, [pill(CELL_TEXT["with approvers"], "c-with-approvers"), " needs approvals"]),
    h("span", null, [pill(CELL_TEXT["root quorum"], "c-root-quorum"), " root quorum (policies bypassed)"]),
    h("span", null, [pill(CELL_TEXT.refused, "c-refused"), " refused (proved)"]),
    h("span", null, [pill(CELL_TEXT["not proved"], "c-not-proved"), " not proved"]),
  ]));
  var head = h("tr", null, [h("th", { "class": "user", text: "user" })].concat(kinds.map(function (k) {
    return h("th", { "class": "kind", text: short(m.kinds[k]) });
  })));
  var rows = m.users.map(function (user, u) {
    return h("tr", { "data-testid": "access-row", "data-user": user.name }, [
      h("th", { "class": "user" }, [user.name, user.standing === "user" ? null : h("span", { "class": "muted", text: " (" + user.standing + ")" })]),
    ].concat(kinds.map(function (k) {
      var cell = m.cells[u][k];
      var note = m.notes[u + "," + k];
      var reason = m.reasons[u + "," + k];
      var about = user.name + " \u00b7 " + short(m.kinds[k]) + ": " + CELL_WORDS[cell] + (note ? " (" + note + ")" : "") + (reason ? " \u2014 " + reason : "");
      return h("td", {
        "class": "c-" + cell.replace(/ /g, "-"), "data-kind": m.kinds[k], "data-cell": cell, title: about,
        text: CELL_TEXT[cell] + (note && cell !== "not proved" ? "*" : ""),
        onclick: function () { document.getElementById("cell-about").textContent = about; },
      });
    })));
  });
  section.appendChild(h("div", { id: "cell-about", "class": "muted", "data-testid": "cell-about", text: "Click a cell for what it means." }));
  if (kinds.length === 0) section.appendChild(h("div", { "class": "card empty", text: "No user outside the root quorum may submit any activity: no policy allows one." }));
  section.appendChild(h("div", { "class": "matrix-wrap" }, [h("table", { "class": "matrix", "data-testid": "access-matrix" }, [h("thead", null, [head]), h("tbody", null, rows)])]));
  var notes = h("div", { "class": "card", style: "margin-top:14px" }, [
    h("div", { "class": "muted", text: "Each cell is the prover's answer for the user submitting that kind of activity: refusals are proved for every request; allowances carry a witness activity the policy evaluator replays. * marks a cell limited to some wallets or keys, or one that waits for the root quorum (hover for details). Users may change their own credentials without a policy; the matrix does not show that." }),
  ]);
  if (m.truncated) notes.appendChild(h("div", { "class": "reason bad", text: "The prover stopped at its change limit: cells it did not reach are shown as not proved." }));
  if (m.notProved.length) {
    notes.appendChild(h("div", { "class": "reason bad", "data-testid": "not-proved" }, ["Not proved: these clauses are outside the prover's fragment, so the cells that depend on them are unknown: "].concat(m.notProved.map(function (c) { return h("code", { text: c + " " }); }))));
  }
  section.appendChild(notes);
}

/* ---------- webhooks ---------- */
function renderWebhooks(w) {
  var section = document.getElementById("webhooks");
  section.textContent = "";
  section.appendChild(h("div", { "class": "toolbar" }, [h("h2", null, ["Webhooks", h("span", { "class": "count", text: w.endpoints.length + " endpoint(s); each delivery attempt, newest first" })])]));
  if (w.endpoints.length === 0) section.appendChild(h("div", { "class": "card empty", text: "no webhook endpoints (create_webhook_endpoint adds one)" }));
  w.endpoints.forEach(function (e) {
    var subscriptions = e.subscriptions.map(function (x) { return pill(x.eventType + (x.filtersJson ? " " + x.filtersJson : "") + (x.isActive ? "" : " (off)")); });
    var rows = e.deliveries.map(function (d) {
      var next = d.nextAttemptMs ? "retry at " + when(d.nextAttemptMs) : d.ok ? "" : "given up";
      return h("tr", { "data-testid": "delivery-row", "data-ok": d.ok ? "yes" : "no" }, [
        td(when(d.atMs)), td(short(d.activityStatus) + " \u00b7 " + d.activityId.slice(0, 8), "mono"), td(String(d.attempt)),
        td(pill(d.statusCode === null ? "no answer" : "HTTP " + d.statusCode, d.ok ? "o-OUTCOME_ALLOW" : "o-OUTCOME_DENY_EXPLICIT")),
        td(d.error || d.response || "", "mono"), td(d.durationMs + " ms"), td(next),
      ]);
    });
    section.appendChild(h("div", { "class": "card", "data-testid": "webhook", "data-name": e.name }, [
      h("h2", null, [e.name, h("span", { "class": "count", text: e.isActive ? "active" : "inactive" })]),
      h("div", { "class": "mono", text: e.url }),
      h("div", { "class": "muted" }, ["Subscriptions: "].concat(subscriptions.length ? subscriptions : ["none"])),
      table(["time", "activity", "attempt", "status", "response or error", "took", "next"], rows, "no delivery yet"),
    ]));
  });
}

/* ---------- auth ---------- */
function allowlistTable(list) {
  return table(["address or block", "label", "added"], list.rules.map(function (r) {
    return h("tr", { "data-testid": "allowlist-rule" }, [td(r.cidr, "mono"), td(r.label), td(r.createdMs ? when(r.createdMs) : "configured")]);
  }), "no rule: every address is refused");
}
function renderAuth(parts) {
  var a = parts[0];
  var outbox = parts[1].messages;
  var section = document.getElementById("auth");
  section.textContent = "";
  var org = a.organizationAllowlist;
  var orgBody = org
    ? h("div", null, [
        h("div", { "class": "muted", text: (org.enabled ? "enabled" : "disabled") + (org.configured ? " (set by the emulator's configuration)" : "") + "; on an evaluation error: " + short(org.onEvaluationError) }),
        allowlistTable(org),
      ])
    : h("div", { "class": "empty", text: "none: requests from every address are accepted" });
  var grid = h("div", { "class": "grid" });
  section.appendChild(grid);
  grid.appendChild(card("Organization IP allowlist", org ? org.rules.length : undefined, orgBody, "card-org-allowlist"));
  grid.appendChild(card("API key IP allowlists", a.keyAllowlists.length, a.keyAllowlists.length === 0 ? h("div", { "class": "empty", text: "no API key has its own allowlist" }) : h("div", null, a.keyAllowlists.map(function (k) {
    return h("div", { "data-testid": "key-allowlist" }, [
      h("div", null, [h("strong", { text: k.apiKeyName }), h("span", { "class": "muted", text: " of " + (k.userName || "?") + " \u00b7 " }), h("span", { "class": "mono", text: k.publicKey })]),
      allowlistTable(k),
    ]);
  })), "card-key-allowlists"));
  section.appendChild(card("Session profiles", a.sessionProfiles.length, table(["name", "scope", "expires after", "notes", "id"], a.sessionProfiles.map(function (p) {
    return h("tr", { "data-testid": "session-profile-row" }, [
      td(p.sessionProfileName), td(p.scope, "mono"), td(p.expirationSeconds ? p.expirationSeconds + " s" : "\u2014"), td(p.notes || ""), td(p.sessionProfileId, "mono"),
    ]);
  }), "no session profiles"), "card-session-profiles"));
  section.appendChild(card("OTP outbox", outbox.length, h("div", null, [
    h("div", { "class": "muted", text: "The codes otp_init sent (the emulator sends no e-mail or SMS): use the code to log in locally. For every organization of the data directory." }),
    table(["sent", "type", "contact", "user", "code", "state", "expires"], outbox.map(function (m) {
      return h("tr", { "data-testid": "otp-row", "data-state": m.state }, [
        td(when(m.sentMs)), td(short(m.otpType).replace(/^OTP_TYPE_/, "")), td(m.contact), td(m.users.join(", ")),
        td(h("strong", { "class": "mono code", "data-testid": "otp-code", text: m.code })), td(m.state), td(when(m.expiresMs)),
      ]);
    }), "no code sent yet"),
  ]), "card-otp-outbox"));
}

/* ---------- requests ---------- */
function renderRequests(r) {
  var section = document.getElementById("requests");
  section.textContent = "";
  section.appendChild(h("div", { "class": "toolbar" }, [h("h2", null, ["Requests", h("span", { "class": "count", text: r.requests.length + " shown (the emulator keeps its last " + r.capacity + " API requests)" })])]));
  section.appendChild(h("div", { "class": "card" }, [table(["time", "operation", "who", "status", "outcome", "took"], r.requests.map(function (q) {
    var who = q.user ? q.user.name + (q.user.apiKeyName ? " (key " + q.user.apiKeyName + ")" : "") : q.path.indexOf("/v1/") === 0 ? "auth proxy" : "not authenticated";
    return h("tr", { "data-testid": "request-row", "data-status": String(q.status) }, [
      td(when(q.atMs)), td(q.path.replace(/^\/public\/v1\//, ""), "mono"), td(who),
      td(pill(String(q.status), q.status < 400 ? "o-OUTCOME_ALLOW" : "o-OUTCOME_DENY_EXPLICIT")), td(q.outcome), td(q.durationMs + " ms"),
    ]);
  }), "no request yet")]));
}

/* ---------- reset ---------- */
function askReset() { document.getElementById("reset-confirm").hidden = false; }
function reset() {
  var yes = document.getElementById("reset-yes");
  yes.disabled = true;
  var headers = { "content-type": "application/json" };
  headers[VOTE_HEADER] = "1";
  return fetch(API + "/reset", { method: "POST", headers: headers, body: JSON.stringify({ confirm: "reset" }) }).then(function (r) {
    return r.json().then(function (body) {
      if (!r.ok) throw new Error(body && body.message ? body.message : "HTTP " + r.status);
      var removed = Object.keys(body.removed).reduce(function (n, k) { return n + body.removed[k]; }, 0);
      toast("Reset: " + removed + " rows removed; the root organization is as at the first start");
      document.getElementById("reset-confirm").hidden = true;
      state.feedKey = "";
      return loadOrganizations().then(refresh);
    });
  }).catch(function (e) { toast("Reset refused: " + e.message); }).then(function () { yes.disabled = false; });
}

/* ---------- navigation and refresh ---------- */
function show(section) {
  state.section = SECTIONS.indexOf(section) >= 0 ? section : "objects";
  SECTIONS.forEach(function (s) { document.getElementById(s).hidden = s !== state.section; });
  Array.prototype.forEach.call(document.querySelectorAll("nav a"), function (a) {
    a.className = a.getAttribute("data-section") === state.section ? "active" : "";
  });
  refresh();
}
// One read at a time. A refresh asked for while one runs (a vote's, a click on another section,
// during the automatic one) runs after it instead of being dropped: dropped, the page kept the
// old feed, or marked a section loaded that was never read.
var loading = null;
var refreshAgain = false;
function refresh() {
  if (!state.org) return Promise.resolve();
  if (loading) { refreshAgain = true; return loading; }
  var org = encodeURIComponent(state.org);
  var job;
  if (state.section === "objects") job = getJson("/organizations/" + org + "/objects").then(renderObjects);
  else if (state.section === "activity") {
    job = getJson("/organizations/" + org + "/activities").then(function (feed) {
      // Redraw only on change, so an open vote picker or details block is not reset.
      var key = JSON.stringify(feed);
      if (key !== state.feedKey || !document.getElementById("activity").firstChild) { state.feedKey = key; renderActivity(feed); }
    });
  } else if (state.section === "webhooks") {
    job = getJson("/organizations/" + org + "/webhooks").then(renderWebhooks);
  } else if (state.section === "auth") {
    job = Promise.all([getJson("/organizations/" + org + "/auth"), getJson("/otp-outbox")]).then(renderAuth);
  } else if (state.section === "requests") {
    job = getJson("/requests?organizationId=" + org).then(renderRequests);
  } else {
    document.getElementById("access").insertBefore(h("div", { "class": "muted", "data-testid": "access-loading", text: "proving\u2026" }), document.getElementById("access").firstChild);
    job = getJson("/organizations/" + org + "/access").then(renderAccess);
  }
  loading = job.catch(function (e) { toast("Could not read the emulator: " + e.message); }).then(function () {
    loading = null;
    if (refreshAgain) { refreshAgain = false; return refresh(); }
    document.body.setAttribute("data-loaded", state.section);
  });
  return loading;
}
window.addEventListener("hashchange", function () { show(location.hash.slice(1)); });
document.getElementById("refresh").onclick = function () { state.feedKey = ""; refresh(); };
document.getElementById("reset").onclick = askReset;
document.getElementById("reset-no").onclick = function () { document.getElementById("reset-confirm").hidden = true; };
document.getElementById("reset-yes").onclick = reset;
document.getElementById("org").onchange = function (e) {
  state.org = e.target.value;
  state.feedKey = "";
  history.replaceState(null, "", "?org=" + encodeURIComponent(state.org) + location.hash);
  refresh();
};
setInterval(function () {
  if (document.getElementById("auto").checked && LIVE.indexOf(state.section) >= 0 && !document.hidden) refresh();
}, 2000);
loadOrganizations().then(function () { show(location.hash.slice(1) || "objects"); }, function (e) { toast("Could not read the emulator: " + e.message); });
})();
`;
