def collect_leaves(node, acc=[]):
    if not node.children:
        acc.append(node.value)
    for child in node.children:
        collect_leaves(child, acc)
    return acc
