# Sourced by the entry scripts (scripts/org-up, scripts/test, .ci/run): makes node_modules hold
# the lock file's dependencies for the Node on PATH.
#
# - A linked node_modules is used as it is: `npm ci` empties node_modules by deleting its
#   entries, so through a link it would empty the folder the link points at (another checkout's
#   dependencies).
# - A missing one (a fresh clone: every CI run) is copied, as hard links, from the per-user
#   cache of this lock file and Node version (scripts/lib/npm-deps.sh), installed there first
#   when missing. Hard links cost a few seconds where a copy of its 600 MB costs half a minute,
#   and npm replaces files rather than writing into them, so an install in the checkout leaves
#   the cache as it was.
# - One older than package-lock.json, or any with KEYFORM_FORCE_NPM_INSTALL=1, is installed
#   again in place with `npm ci`.
source "$(dirname "${BASH_SOURCE[0]}")/npm-deps.sh"

if [ -L node_modules ]; then
  echo "node_modules is a link to $(readlink -f node_modules): using it as it is, not installing through it" >&2
elif [ ! -e node_modules ] && [ "${KEYFORM_FORCE_NPM_INSTALL:-0}" != "1" ]; then
  keyform_npm_deps="$(keyform_npm_deps_cache)"
  echo "npm dependencies: from $keyform_npm_deps (hard links)" >&2
  cp -al "$keyform_npm_deps/node_modules" node_modules 2>/dev/null || {
    rm -rf node_modules
    cp -a "$keyform_npm_deps/node_modules" node_modules
  }
  # Installed now, as far as the staleness check below goes: the clone's lock file is newer than
  # the cache's record of its install (the record is shared with the cache; only its time changes).
  touch node_modules/.package-lock.json
  unset keyform_npm_deps
elif [ "${KEYFORM_FORCE_NPM_INSTALL:-0}" = "1" ] || [ ! -f node_modules/.package-lock.json ] \
  || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  echo "Installing npm dependencies..." >&2
  keyform_npm_install
fi
keyform_sqlite_for_node
