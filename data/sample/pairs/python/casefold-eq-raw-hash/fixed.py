class Tag:
    def __init__(self, name):
        self.name = name.strip()

    def __eq__(self, other):
        return isinstance(other, Tag) and self.name.casefold() == other.name.casefold()

    def __hash__(self):
        return hash(self.name.casefold())
