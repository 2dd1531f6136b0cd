def warmest_station(readings):
    best_name, best_temp = None, 0
    for name, temp in readings.items():
        if temp > best_temp:
            best_name, best_temp = name, temp
    return best_name
