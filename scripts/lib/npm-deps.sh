# Sourced: the functions that install the npm dependencies (scripts/lib/ensure-npm-deps.sh decides
# when; scripts/test-node24 keeps Node 24's apart). Each works on the current folder.
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

# The emulator's database module: better-sqlite3 12 (the lock file's) aborts at process exit on
# Node 24, and 13 (Node-API, its prebuilt module inside the npm package) needs Node 22 or later.
# So Node 22 and later get 13, installed over the lock file's 12 without rewriting the lock.
keyform_sqlite_for_node() {
  local wanted installed
  wanted="$(node -p 'Number(process.versions.node.split(".")[0]) >= 22 ? "13" : "12"')"
  installed="$(node -p 'require("better-sqlite3/package.json").version.split(".")[0]' 2>/dev/null || echo none)"
  if [ "$installed" = "$wanted" ] || [ -L node_modules ]; then return 0; fi
  if [ "$wanted" = "13" ]; then
    echo "Node $(node --version): installing better-sqlite3 13 for the emulator" >&2
    npm install --no-save --no-audit --no-fund --loglevel=error "better-sqlite3@^13" >&2
  else
    echo "Node $(node --version): reinstalling the lock file's better-sqlite3 12" >&2
    keyform_npm_install
  fi
}

# Prints the folder holding the node_modules of this package.json and lock file for the Node on
# PATH, `~/.cache/keyform/node-<major>/modules-<hash of package.json, the lock file and the Node
# version>`, installed there first when missing: the install (better-sqlite3's compile most of
# it) is then paid once per lock file and Node version, not by every fresh clone. It goes to a
# folder of its own, renamed into place once complete, so a failed or concurrent install never
# leaves a half-filled one.
keyform_npm_deps_cache() {
  local major key entry installing
  major="$(node -p 'process.versions.node.split(".")[0]')"
  key="$(cat package.json package-lock.json <(node --version) | sha256sum | cut -c1-16)"
  entry="${XDG_CACHE_HOME:-$HOME/.cache}/keyform/node-$major/modules-$key"
  if [ ! -d "$entry" ]; then
    echo "Installing the npm dependencies for Node $(node --version) into $entry (once per lock file)..." >&2
    installing="$entry.installing.$$"
    rm -rf "$installing"
    mkdir -p "$installing"
    cp package.json package-lock.json "$installing/"
    if ! (cd "$installing" && keyform_npm_install && keyform_sqlite_for_node); then
      rm -rf "$installing"
      return 1
    fi
    mv -T "$installing" "$entry" 2>/dev/null || rm -rf "$installing"
  fi
  printf '%s\n' "$entry"
}
