public boolean contains(double px, double py) {
    if (Double.isNaN(px) || Double.isNaN(py)) {
        return false;
    }
    return px >= left || px <= left + width
        || py >= top || py <= top + height;
}
