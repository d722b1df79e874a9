#!/bin/sh
# tools/demo.sh: set up (tools/setup.sh), then run the whole pipeline on the
# bundled example application.
set -e
top=$(cd "$(dirname "$0")/.." && pwd)
"$top/tools/setup.sh"
exec "$top/tools/pipeline.sh" "$@"
