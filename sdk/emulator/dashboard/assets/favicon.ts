/**
 * @module emulator/dashboard/assets/favicon
 * The page's icon, an SVG key (served at `/favicon.ico`, which browsers ask for, and linked from
 * the page as an SVG icon).
 */
export const FAVICON_SVG = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32">
<rect width="32" height="32" rx="7" fill="#2f5bd3"/>
<circle cx="11" cy="16" r="5.5" fill="none" stroke="#fff" stroke-width="3"/>
<path d="M16.5 16h11M23 16v5M27 16v4" stroke="#fff" stroke-width="3" stroke-linecap="round"/>
</svg>
`;
