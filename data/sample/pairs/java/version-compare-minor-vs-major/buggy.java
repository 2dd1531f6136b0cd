@Override
public int compareTo(Version other) {
    if (major != other.major) {
        return Integer.compare(major, other.major);
    }
    if (minor != other.minor) {
        return Integer.compare(minor, other.major);
    }
    return Integer.compare(patch, other.patch);
}
