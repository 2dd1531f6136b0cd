@Override
public boolean equals(Object o) {
    return o instanceof HeaderName && name.equalsIgnoreCase(((HeaderName) o).name);
}

@Override
public int hashCode() {
    return name.hashCode();
}
