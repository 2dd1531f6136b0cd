private static final class Holder {
    static final AppConfig INSTANCE = new AppConfig(loadFromDisk());
}

public static AppConfig getInstance() {
    return Holder.INSTANCE;
}
