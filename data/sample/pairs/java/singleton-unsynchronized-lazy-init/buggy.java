private static AppConfig instance;

public static AppConfig getInstance() {
    if (instance == null) {
        instance = new AppConfig(loadFromDisk());
    }
    return instance;
}
