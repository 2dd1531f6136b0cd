private V find(Node<K, V> node, K key) {
    if (node == null) {
        return null;
    }
    int c = key.compareTo(node.key);
    if (c < 0) {
        return find(node.left, key);
    } else if (c > 0) {
        return find(node.right, key);
    } else {
        return node.value;
    }
}
