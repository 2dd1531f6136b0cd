def warmest_station(readings):
    best_name, best_temp = None, float("-inf")
    for name, temp in readings.items():
        if temp > best_temp:
            best_name, best_temp = name, temp
    return best_name
