public boolean equals(Pair<A, B> other) {
    return other != null
            && Objects.equals(first, other.first)
            && Objects.equals(second, other.second);
}

@Override
public int hashCode() {
    return Objects.hash(first, second);
}
