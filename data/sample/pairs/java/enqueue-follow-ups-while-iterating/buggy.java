public void expandFollowUps(List<Task> plan) {
    for (Task task : plan) {
        if (task.hasFollowUp()) {
            plan.add(task.followUp());
        }
    }
}
