private V find(Node<K, V> node, K key) {
    if (node == null) {
        return null;
    }
    int c = key.compareTo(node.key);
    if (c < 0) {
        find(node.left, key);
    } else if (c > 0) {
        find(node.right, key);
    } else {
        return node.value;
    }
    return null;
}
