/**
 * @module emulator/dashboard/paths
 * Where the dashboard lives. Its JSON endpoints sit under the emulator's own `/_keyform/`
 * prefix, apart from the service's wire API (`/public/v1/…`, `/v1/…`), which they are not part of.
 */

/** The page itself (also served at `/`). */
export const DASHBOARD_PAGE = "/dashboard";
/** Static script and style sheet. */
export const DASHBOARD_ASSETS = "/_keyform/dashboard/assets";
/** The dashboard's JSON endpoints. */
export const DASHBOARD_API = "/_keyform/dashboard/api";
/**
 * Header every vote request must carry. A page of another site cannot send it without a CORS
 * preflight the emulator never grants, so it cannot vote through a visitor's browser.
 */
export const DASHBOARD_VOTE_HEADER = "x-keyform-dashboard";
