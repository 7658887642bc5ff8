"""Print the names no generated Python identifier may take, one per line,
sorted: "keyword NAME" for the keywords of the running Python
(keyword.kwlist) and "builtin NAME" for its public builtins.

    for py in python3.10 python3.11 python3.12 python3.13; do $py gen/ir/names/python_names.py; done | sort -u

gives gen/ir/names/python.txt (after its comment lines); names_test.go
checks the file against every Python it finds.
"""

import builtins
import keyword

for name in sorted(keyword.kwlist):
    print("keyword", name)
for name in sorted(n for n in dir(builtins) if not n.startswith("_") and not keyword.iskeyword(n)):
    print("builtin", name)
