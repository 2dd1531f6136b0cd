public void expandFollowUps(List<Task> plan) {
    List<Task> followUps = new ArrayList<>();
    for (Task task : plan) {
        if (task.hasFollowUp()) {
            followUps.add(task.followUp());
        }
    }
    plan.addAll(followUps);
}
