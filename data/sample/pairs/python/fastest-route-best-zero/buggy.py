def fastest_route(routes):
    best_route = None
    best = 0
    for route in routes:
        if route.latency_ms < best:
            best_route, best = route, route.latency_ms
    return best_route
