def paginate(items, page, per_page=20):
    if page < 1:
        raise ValueError("page must be >= 1")
    start = (page - 1) * per_page
    end = start + per_page
    return {
        "page": page,
        "items": items[start:end],
        "has_next": end < len(items),
    }
