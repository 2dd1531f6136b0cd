public final class GridPoint {
    private final int x;
    private final int y;

    public GridPoint(int x, int y) {
        this.x = x;
        this.y = y;
    }

    @Override
    public boolean equals(Object o) {
        if (this == o) {
            return true;
        }
        if (!(o instanceof GridPoint)) {
            return false;
        }
        GridPoint p = (GridPoint) o;
        return x == p.x && y == p.y;
    }
}
