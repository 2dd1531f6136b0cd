@Override
public boolean equals(Object o) {
    if (!(o instanceof Pair)) {
        return false;
    }
    Pair<?, ?> other = (Pair<?, ?>) o;
    return Objects.equals(first, other.first)
            && Objects.equals(second, other.second);
}

@Override
public int hashCode() {
    return Objects.hash(first, second);
}
