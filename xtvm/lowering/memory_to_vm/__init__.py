"""memory → vm: the graph function as VM bytecode (``convert-memory-to-vm``),
and the executable made from the vm stage (``vm-embed-executable``)."""
