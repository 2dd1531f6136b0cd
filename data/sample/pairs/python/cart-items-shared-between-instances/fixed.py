class Cart:
    def __init__(self, customer_id, items=None):
        self.customer_id = customer_id
        self.items = list(items) if items is not None else []

    def add(self, sku, qty=1):
        self.items.append((sku, qty))
