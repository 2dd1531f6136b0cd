class Cart:
    def __init__(self, customer_id, items=[]):
        self.customer_id = customer_id
        self.items = items

    def add(self, sku, qty=1):
        self.items.append((sku, qty))
