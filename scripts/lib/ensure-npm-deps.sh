# Sourced by the entry scripts: installs the npm dependencies when node_modules is missing or
# older than package-lock.json. better-sqlite3 compiles from source (its prebuilt binaries
# come from a host we do not rely on); pointing node-gyp at the local Node headers means
# the compile needs no download either.
if [ -d /usr/include/node ] && [ -z "${npm_config_nodedir:-}" ]; then
  export npm_config_nodedir=/usr
fi
if [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  echo "Installing npm dependencies (npm ci)..." >&2
  npm ci --no-audit --no-fund >&2
fi
