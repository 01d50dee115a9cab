# Café crème: prix en £

def prix():
    return "déjà"
