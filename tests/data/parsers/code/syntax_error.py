import os

def ok(a):
    return a

def broken(:
    return (

class K:
    def m(self):
        pass
