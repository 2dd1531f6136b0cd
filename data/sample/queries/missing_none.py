def email_domain(users, user_id):
    email = users.get(user_id)
    return email.split("@", 1)[1].lower()
