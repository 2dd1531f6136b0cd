@Override
public boolean equals(Object o) {
    if (!(o instanceof Money)) {
        return false;
    }
    Money m = (Money) o;
    return amountCents == m.amountCents && currency.equals(m.currency);
}

@Override
public int hashCode() {
    return Objects.hash(amountCents, currency, label);
}
