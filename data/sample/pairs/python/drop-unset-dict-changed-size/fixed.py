def drop_unset(settings):
    for key in list(settings):
        if settings[key] is None:
            del settings[key]
    return settings
