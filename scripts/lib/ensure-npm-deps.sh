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
  cat "$log" >&2
  # A registry mirror that does not serve other platforms' optional packages (rollup's, for
  # example) leaves them out of package-lock.json, and `npm ci` then calls the lock out of
  # sync although nothing this platform needs is missing. Install from the same lock file
  # without rewriting it.
  if grep -q "can only install packages when your package.json and package-lock.json" "$log"; then
    rm -f "$log"
    echo "npm ci refused the lock file (optional packages of other platforms missing); installing with 'npm install --no-save' from the same lock file" >&2
    rm -rf node_modules
    npm install --no-save --no-audit --no-fund >&2
    return
  fi
  rm -f "$log"
  return 1
}

if [ "${KEYFORM_FORCE_NPM_INSTALL:-0}" = "1" ] || [ ! -f node_modules/.package-lock.json ] \
  || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  echo "Installing npm dependencies..." >&2
  keyform_npm_install
fi
