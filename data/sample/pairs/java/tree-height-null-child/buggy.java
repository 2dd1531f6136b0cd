public static int height(TreeNode node) {
    if (node.left == null && node.right == null) {
        return 1;
    }
    return 1 + Math.max(height(node.left), height(node.right));
}
