def gcd(a, b):
    a, b = abs(a), abs(b)
    if b == 0:
        return a
    gcd(b, a % b)
