"""Graph partitioning for external codegens (TVM's BYOC passes), in order:

1. ``relay-merge-composite``: named patterns → composite functions;
2. ``relay-annotate-target``: ops a codegen's predicate accepts get its name;
3. ``relay-merge-compiler-regions``: neighbouring ops of one target form
   regions, never a cycle;
4. ``relay-partition-graph``: each region becomes a function marked
   ``relay.compiler``, called from the graph.

The attributes they communicate through are in :mod:`.attrs`.
"""
