# Sourced by the entry scripts (scripts/org-up, scripts/test, .ci/run): installs the npm
# dependencies when node_modules is missing or older than package-lock.json, or always when
# KEYFORM_FORCE_NPM_INSTALL=1.
#
# better-sqlite3 compiles from source (its prebuilt binaries come from a host we do not rely
# on); pointing node-gyp at the local Node headers means the compile needs no download either.
if [ -d /usr/include/node ] && [ -z "${npm_config_nodedir:-}" ]; then
  export npm_config_nodedir=/usr
fi

keyform_npm_install() {
  local log
  log="$(mktemp)"
  if npm ci --no-audit --no-fund >"$log" 2>&1; then
    cat "$log" >&2
    rm -f "$log"
    return 0
  fi
  # A registry mirror that does not serve other platforms' optional packages (rollup's, for
  # example) leaves them out of package-lock.json, and `npm ci` then calls the lock out of
  # sync although nothing this platform needs is missing. That case is expected on a fresh
  # clone: say so in one line and install from the same lock file without rewriting it. Any
  # other failure shows npm's own output.
  if grep -q "can only install packages when your package.json and package-lock.json" "$log"; then
    rm -f "$log"
    echo "npm ci: the lock file lacks other platforms' optional packages; installing from it with 'npm install --no-save'" >&2
    rm -rf node_modules
    npm install --no-save --no-audit --no-fund --loglevel=error >&2
    return
  fi
  cat "$log" >&2
  rm -f "$log"
  return 1
}

# `npm ci` empties node_modules by deleting its entries, so through a link it would empty the
# folder the link points at (another checkout's dependencies): a linked node_modules is used as
# it is.
if [ -L node_modules ]; then
  echo "node_modules is a link to $(readlink -f node_modules): using it as it is, not installing through it" >&2
elif [ "${KEYFORM_FORCE_NPM_INSTALL:-0}" = "1" ] || [ ! -f node_modules/.package-lock.json ] \
  || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  echo "Installing npm dependencies..." >&2
  keyform_npm_install
fi

# The emulator's database module: better-sqlite3 12 (the lock file's) aborts at process exit on
# Node 24, and 13 (Node-API, its prebuilt module inside the npm package) needs Node 22 or later.
# So Node 22 and later get 13, installed over the lock file's 12 without rewriting the lock.
keyform_sqlite_wanted="$(node -p 'Number(process.versions.node.split(".")[0]) >= 22 ? "13" : "12"')"
keyform_sqlite_installed="$(node -p 'require("better-sqlite3/package.json").version.split(".")[0]' 2>/dev/null || echo none)"
if [ "$keyform_sqlite_installed" != "$keyform_sqlite_wanted" ] && [ ! -L node_modules ]; then
  if [ "$keyform_sqlite_wanted" = "13" ]; then
    echo "Node $(node --version): installing better-sqlite3 13 for the emulator" >&2
    npm install --no-save --no-audit --no-fund --loglevel=error "better-sqlite3@^13" >&2
  else
    echo "Node $(node --version): reinstalling the lock file's better-sqlite3 12" >&2
    keyform_npm_install
  fi
fi
unset keyform_sqlite_wanted keyform_sqlite_installed
